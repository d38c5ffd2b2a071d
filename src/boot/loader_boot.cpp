#include "boot/loader_boot.h"

#include <unistd.h>

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

namespace {

constexpr std::size_t kMaxCopiedFileBytes = std::size_t{512} << 20;

Result<std::string> read_descriptor(int fd, std::string_view shown) {
  if (::lseek(fd, 0, SEEK_SET) != 0) return make_error(errno, "seek " + std::string(shown));
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return make_error(errno, "read " + std::string(shown));
    if (got == 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(got));
    if (bytes.size() > kMaxCopiedFileBytes) {
      return content_error(std::string(shown) + " is larger than 512 MiB");
    }
  }
}

}  // namespace

Status copy_candidate_files_into(const std::string& parent, const std::string& folder,
                                 const std::vector<FileCopy>& files) {
  if (files.empty()) return ok_status();
  auto base = TrustedDir::open(parent);
  if (!base) return base.error();
  auto copies = base->subdirectory(folder, TrustedDir::Missing::kCreate, 0755);
  if (!copies) return copies.error();
  for (const FileCopy& file : files) {
    auto bytes = read_descriptor(file.fd, file.shown);
    if (!bytes) return bytes.error();
    if (auto copied = copies->replace_file(file.name, *bytes, 0644); !copied) return copied;
  }
  return ok_status();
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
