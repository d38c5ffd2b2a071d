#pragma once
// /proc/cpuinfo, read once per capture and shared by the cpu and environment collectors. Only
// the first processor's block is read: model, microcode and flags are the same on every
// processor, and the kernel builds the file cpu by cpu.

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

inline constexpr std::string_view kCpuinfoPath = "/proc/cpuinfo";

// The start of the file, up to 16 KiB and cut after its last whole line: the first processor's
// block and, on most architectures, the lines every processor shares.
Result<std::string> cpuinfo_head(const SysRoot& root);

// Text up to the first blank line; an error when the file cannot be read or is empty.
Result<std::string> first_cpuinfo_block(const SysRoot& root);

// Whether the block's "flags" line names flag; nullopt without a flags line (arm64 has none).
std::optional<bool> has_cpu_flag(std::string_view block, std::string_view flag);

}  // namespace kdrift
