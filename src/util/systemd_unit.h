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

// Writes text, with every @KDRIFT@ replaced by program (escaped for systemd's % specifiers and $
// expansion), to unit_dir/name atomically, points unit_dir/wanted_by.wants/name at it, then
// runs `systemctl daemon-reload` when systemd is running. A program path systemd would split
// (whitespace, quotes, backslashes) is refused. Installing again replaces both.
Status install_unit(const std::string& unit_dir, const std::string& name, std::string text,
                    const std::string& program, const std::string& wanted_by);

// Removes what install_unit made; what is already gone is not an error.
Status remove_unit(const std::string& unit_dir, const std::string& name,
                   const std::string& wanted_by);

// The path of the running binary (/proc/self/exe), for the units to run this same kdrift.
Result<std::string> running_executable();

}  // namespace kdrift
