#pragma once
// kdrift's own systemd units (dist/systemd/*.service, compiled in by cmake/embed.cmake), so
// that an installed kdrift can write them: installed for this binary, wanted by
// multi-user.target. Failures are fatal (exit 2).

#include <string>
#include <string_view>

namespace kdrift {

inline constexpr std::string_view kBootcheckUnit = "kdrift-bootcheck.service";
inline constexpr std::string_view kBisectUnit = "kdrift-bisect.service";

// The unit file's text with @KDRIFT@ still in it.
std::string_view kdrift_unit_text(std::string_view name);

// The unit file now in effect: the installed package's (kVendorUnitDirectory) when it runs
// this binary with this text, else the one written to unit_dir.
std::string install_kdrift_unit(const std::string& unit_dir, std::string_view name);
// The same with the unit's text adapted by the caller (a bisect's own state directory).
std::string install_kdrift_unit(const std::string& unit_dir, std::string_view name,
                                std::string text);
// Idempotent: a unit that is not installed is not an error.
void remove_kdrift_unit(const std::string& unit_dir, std::string_view name);

}  // namespace kdrift
