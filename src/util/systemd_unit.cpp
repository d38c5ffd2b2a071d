#include "util/systemd_unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/process.h"
#include "util/sysroot.h"
#include "util/text.h"

namespace kdrift {
namespace {

namespace fs = std::filesystem;

std::string wants_link(const std::string& unit_dir, const std::string& name,
                       const std::string& wanted_by) {
  return unit_dir + "/" + wanted_by + ".wants/" + name;
}

// A name that would leave the unit directory, or that systemd would not load as a unit.
Status check_name(const std::string& name, const std::string& wanted_by) {
  for (const std::string* part : {&name, &wanted_by}) {
    if (part->empty() || part->find('/') != std::string::npos || *part == "." || *part == "..") {
      return make_error(EINVAL, "not a unit name: \"" + *part + "\"");
    }
  }
  return ok_status();
}

bool systemd_is_running() {
  struct stat st {};
  return ::stat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

Status reload_systemd() {
  if (!systemd_is_running()) return ok_status();
  ProcessOptions options;
  options.capture_output = true;
  auto ran = run_process({"systemctl", "daemon-reload"}, options);
  if (!ran) return ran.error();
  if (ran->exit_status != 0) {
    return content_error("systemctl daemon-reload failed (exit " +
                         std::to_string(ran->exit_status) + "): " + std::string(trim(ran->output)));
  }
  return ok_status();
}

// Points link at target, replacing whatever link was there in one rename.
Status replace_symlink(const std::string& target, const std::string& link) {
  const std::string temp = link + ".tmp." + std::to_string(::getpid());
  ::unlink(temp.c_str());
  if (::symlink(target.c_str(), temp.c_str()) != 0) return make_error(errno, "symlink " + temp);
  if (::rename(temp.c_str(), link.c_str()) != 0) {
    const int code = errno;
    ::unlink(temp.c_str());
    return make_error(code, "rename " + temp + " to " + link);
  }
  return ok_status();
}

Status remove_if_present(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return make_error(errno, "remove " + path);
  return ok_status();
}

}  // namespace

Result<std::string> unit_path_value(std::string_view path, UnitSetting setting) {
  const auto refused = [&](const std::string& why) {
    return make_error(EINVAL, "cannot name " + quote_value(path) + " in a unit file: " + why);
  };
  if (path.empty() || path.front() != '/') return refused("not an absolute path");
  if (terminal_safe(path) != path) {
    return refused("a control character (a newline, a tab, ...) or invalid UTF-8");
  }
  std::string out;
  for (const char c : path) {
    if (c == ' ' || c == '"' || c == '\'' || c == '\\') {
      return refused("whitespace, a quote or a backslash, which systemd splits or unquotes on");
    }
    if (c == '%' || (c == '$' && setting == UnitSetting::kCommandLine)) out.push_back(c);
    out.push_back(c);
  }
  return out;
}

Result<std::string> unit_text_for(std::string text, const std::string& program) {
  auto escaped = unit_path_value(program, UnitSetting::kCommandLine);
  if (!escaped) return escaped.error();
  for (size_t at = text.find(kUnitProgramPlaceholder); at != std::string::npos;
       at = text.find(kUnitProgramPlaceholder, at + escaped->size())) {
    text.replace(at, kUnitProgramPlaceholder.size(), *escaped);
  }
  return text;
}

Result<std::string> install_unit(const std::string& unit_dir, const std::string& name,
                                 std::string text, const std::string& program,
                                 const std::string& wanted_by, const std::string& vendor_dir) {
  if (auto checked = check_name(name, wanted_by); !checked) return checked.error();
  auto rendered = unit_text_for(std::move(text), program);
  if (!rendered) return rendered.error();
  std::error_code failure;
  // systemctl enable links by absolute path; a relative one would resolve from the wants dir.
  const std::string directory = fs::absolute(unit_dir, failure).lexically_normal().string();
  if (failure) return make_error(failure.value(), unit_dir);
  fs::create_directories(directory + "/" + wanted_by + ".wants", failure);
  if (failure)
    return make_error(failure.value(), "create " + directory + "/" + wanted_by + ".wants");
  const std::string vendor_path = vendor_dir + "/" + name;
  const auto vendor = read_whole_file(vendor_path, kMaxUnitBytes);
  std::string unit_path = directory + "/" + name;
  if (vendor && *vendor == *rendered) {
    // The package's own unit runs this kdrift exactly so: enable it as systemctl would, and
    // drop a copy an earlier install from a build tree left, which would override it.
    if (auto removed = remove_if_present(unit_path); !removed) return removed.error();
    unit_path = vendor_path;
  } else if (auto written = write_file_atomically(unit_path, *rendered, 0644); !written) {
    // systemd reads units as root, but `systemctl cat` and friends as anyone: a unit is public.
    return written.error();
  }
  if (auto linked = replace_symlink(unit_path, wants_link(directory, name, wanted_by)); !linked) {
    return linked.error();
  }
  if (auto reloaded = reload_systemd(); !reloaded) return reloaded.error();
  return unit_path;
}

Status remove_unit(const std::string& unit_dir, const std::string& name,
                   const std::string& wanted_by) {
  if (auto checked = check_name(name, wanted_by); !checked) return checked;
  // The link first: a unit left without its link is merely disabled, never a dangling link.
  if (auto removed = remove_if_present(wants_link(unit_dir, name, wanted_by)); !removed) {
    return removed;
  }
  if (auto removed = remove_if_present(unit_dir + "/" + name); !removed) return removed;
  return reload_systemd();
}

Result<std::string> running_executable() {
  return SysRoot("/").link_target("/proc/self/exe");
}

}  // namespace kdrift
