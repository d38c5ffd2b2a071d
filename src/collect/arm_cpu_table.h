#pragma once
// Names of Arm processors from the ids /proc/cpuinfo prints ("CPU implementer : 0x41",
// "CPU part : 0xd46"): arm and arm64 kernels print no model name of their own.

#include <cstdint>
#include <optional>
#include <string_view>

namespace kdrift {

// "ARM", "Qualcomm", "Apple", …; nullopt for an implementer id the table does not know.
std::optional<std::string_view> arm_implementer_name(uint64_t implementer);
// "Cortex-A510", "Neoverse-N1", …; nullopt for a part the table does not know.
std::optional<std::string_view> arm_part_name(uint64_t implementer, uint64_t part);

}  // namespace kdrift
