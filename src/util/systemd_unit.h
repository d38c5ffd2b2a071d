#pragma once
// Installing a systemd unit file as `systemctl enable` leaves it, without needing systemd to run:
// the file in a unit directory and its NAME symlink in TARGET.wants/. systemd is asked to reload
// only when it is PID 1 (/run/systemd/system exists), so a chroot, a container or a test's
// temporary unit directory work the same way.

#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

inline constexpr std::string_view kDefaultUnitDirectory = "/etc/systemd/system";
// Where a unit text names the program to run; replaced at install time.
inline constexpr std::string_view kUnitProgramPlaceholder = "@KDRIFT@";

// Where a path is written in a unit file: ExecStart= expands $VARIABLES as well as the %
// specifiers every other setting (ConditionPathExists=) expands.
enum class UnitSetting { kCommandLine, kOther };

// path as it must be written in setting for systemd to read back exactly path: % doubled, and $
// in a command line. Refused (EINVAL, naming the path and what is wrong) when no escaping keeps
// it one value (systemd.syntax(7), systemd.service(5) "Command lines"): a path that is not
// absolute; a newline or any other control character (a new line is a new setting, systemd
// reads no escape in most settings); whitespace, a quote or a backslash (ExecStart= splits and
// unquotes on them); invalid UTF-8 (systemd ignores such an assignment).
Result<std::string> unit_path_value(std::string_view path, UnitSetting setting);

// Writes text, with every @KDRIFT@ replaced by program (unit_path_value for a command line), to
// unit_dir/name atomically (mode 0644), points unit_dir/wanted_by.wants/name at it, then runs
// `systemctl daemon-reload` when systemd is running. A program unit_path_value refuses is
// refused here before anything is written. Installing again replaces both.
Status install_unit(const std::string& unit_dir, const std::string& name, std::string text,
                    const std::string& program, const std::string& wanted_by);

// Removes what install_unit made; what is already gone is not an error.
Status remove_unit(const std::string& unit_dir, const std::string& name,
                   const std::string& wanted_by);

// The path of the running binary (/proc/self/exe), for the units to run this same kdrift.
Result<std::string> running_executable();

}  // namespace kdrift
