#pragma once
// Sets of cpu and node ids as the kernel prints them ("0-3,8,10-11"), and the numbered entries of
// sysfs directories (cpu12, policy3, node1, state2).

#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

// Twice the largest CONFIG_NR_CPUS any architecture allows (8192): a list naming a higher id is
// corrupt, and expanding it would bloat the snapshot.
inline constexpr int kMaxCpuId = 16383;

// "0-3,8" -> {0,1,2,3,8}; the error names path and shows the text.
Result<std::vector<int>> parse_id_list(std::string_view text, std::string_view path);

struct IdList {
  std::string text;  // as the file has it, trimmed: "0-3,8"
  std::vector<int> ids;
};
// The list in the file at path, read and parsed.
Result<IdList> read_id_list(const SysRoot& root, std::string_view path);
// Reads path into section[key] as a sorted array of ids, or records why not.
bool put_id_list(Json& section, std::string_view key, const SysRoot& root, std::string_view path);

// Ids of the names that are prefix + a decimal number ("policy12" -> 12), sorted numerically.
std::vector<int> numbered_entries(const std::vector<std::string>& names, std::string_view prefix);

}  // namespace kdrift
