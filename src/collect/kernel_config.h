#pragma once
// Kernel build configuration (.config text): "CONFIG_X=y|m|string|number", and
// "# CONFIG_X is not set" kept as "n" so that "unset" and "unknown" stay different.

#include <string_view>

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// {"CONFIG_X": "y" | "m" | "n" | number | "text"}; malformed lines are skipped and counted by the
// caller through the returned pair's second member.
struct ParsedConfig {
  Json symbols = Json::object();
  size_t malformed_lines = 0;
};
ParsedConfig parse_kernel_config(std::string_view text);

// {"source": path, "symbols": {...}} from /proc/config.gz or /boot/config-<release>, or the
// reasons neither could be used in "unavailable".
Json collect_kernel_config(const SysRoot& root, std::string_view release);

}  // namespace kdrift
