#pragma once
// Cpu masks as sysfs prints them (node/nodeN/cpumap, cpu/cpuN/topology/core_cpus): hexadecimal
// 32-bit words separated by commas, the highest word first ("00000000,00ff00ff"). Older kernels
// and some architectures give a node only this form, with no cpulist beside it.

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kdrift {

// "00000003,f0000000" -> {28, 29, 30, 31, 32, 33}; the error names path and shows the text.
Result<std::vector<int>> parse_cpu_mask(std::string_view text, std::string_view path);

// {0,1,2,3,8,10,11} -> "0-3,8,10-11": the kernel's own list form.
std::string format_id_list(const std::vector<int>& ids);

}  // namespace kdrift
