#include "boot/loader_boot.h"

#include <cerrno>

#include "boot/kexec.h"
#include "util/process.h"
#include "util/text.h"
#include "util/trusted_dir.h"

namespace kdrift {

std::string with_panic_reboot(std::string_view command_line) {
  for (const std::string& word : split_whitespace(command_line)) {
    if (starts_with(word, "panic=")) return std::string(command_line);
  }
  return std::string(command_line) + " panic=" + std::to_string(kCandidatePanicSeconds);
}

Result<std::string> loader_entry_id(std::string_view bisect_id) {
  const bool plain = !bisect_id.empty() && bisect_id.size() <= 64 &&
                     bisect_id.find_first_not_of(
                         "0123456789abcdefghijklmnopqrstuvwxyz"
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.") == std::string_view::npos;
  if (!plain) {
    return content_error("bisect id \"" + terminal_safe(bisect_id) +
                         "\" is not a plain name a boot entry can carry");
  }
  return "kdrift-" + std::string(bisect_id);
}

std::string below_root(const std::string& root_path, std::string_view path) {
  if (root_path.empty() || root_path == "/") return std::string(path);
  std::string base = root_path;
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  return base + std::string(path);
}

Status remove_copied_files(const std::string& directory, std::ostream& log) {
  auto folder = TrustedDir::open(directory);
  if (!folder) return folder.error().code == ENOENT ? ok_status() : Status(folder.error());
  auto names = folder->list();
  if (!names) return names.error();
  for (const std::string& name : *names) {
    if (auto removed = folder->remove_file(name); !removed) return removed;
  }
  if (auto removed = folder->remove_if_empty(); !removed) return removed;
  log << "removed " << terminal_safe(directory) << "\n";
  return ok_status();
}

Status reboot_machine(const SysRoot& root, std::ostream& log) {
  const std::vector<std::string> command = systemd_is_pid1(root)
                                               ? std::vector<std::string>{"systemctl", "reboot"}
                                               : std::vector<std::string>{"reboot"};
  log << join(command, " ") << "\n" << std::flush;
  auto ran = run_process(command, {});
  if (!ran) return make_error(ran.error().code, "bisect step: " + ran.error().describe());
  if (ran->exit_status != 0) {
    return content_error("bisect step: " + join(command, " ") + " exited with status " +
                         std::to_string(ran->exit_status) +
                         "; the next boot's entry is set: reboot to go on");
  }
  return ok_status();
}

}  // namespace kdrift
