#pragma once
// Installing a systemd unit file as `systemctl enable` leaves it, without needing systemd to run:
// the file in a unit directory and its NAME symlink in TARGET.wants/. systemd is asked to reload
// only when it is PID 1 (/run/systemd/system exists), so a chroot, a container or a test's
// temporary unit directory work the same way.

#include <cstddef>
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

// Where the Debian package installs kdrift's units (their ExecStart names /usr/bin/kdrift).
inline constexpr std::string_view kVendorUnitDirectory = "/usr/lib/systemd/system";
// A unit file is a few hundred bytes; a vendor file beyond this is not one of kdrift's.
inline constexpr size_t kMaxUnitBytes = 64 * 1024;

// text with every @KDRIFT@ replaced by program (unit_path_value for a command line).
Result<std::string> unit_text_for(std::string text, const std::string& program);

// Enables unit name for wanted_by as `systemctl enable` leaves it: when vendor_dir/name already
// holds exactly unit_text_for(text, program) (the installed package's unit, and this is the
// packaged kdrift), unit_dir/wanted_by.wants/name points at it; otherwise the text is written to
// unit_dir/name atomically (mode 0644) and the link points there. Then `systemctl
// daemon-reload` when systemd is running. A program unit_path_value refuses is refused before
// anything is written; installing again replaces both. Returns the unit file now in effect.
Result<std::string> install_unit(const std::string& unit_dir, const std::string& name,
                                 std::string text, const std::string& program,
                                 const std::string& wanted_by,
                                 const std::string& vendor_dir = std::string(kVendorUnitDirectory));

// Removes what install_unit made; what is already gone is not an error.
Status remove_unit(const std::string& unit_dir, const std::string& name,
                   const std::string& wanted_by);

// The path of the running binary (/proc/self/exe), for the units to run this same kdrift.
Result<std::string> running_executable();

}  // namespace kdrift
