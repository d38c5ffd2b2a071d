#pragma once
// Kernel config changes grouped by what they mean for I/O: the groups a rule file names (IOMMU,
// block, NVMe, io_uring, mitigations) symbol by symbol, everything else counted by prefix, as
// scripts/diffconfig lists them but sorted by relevance.

#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"

namespace kdrift {

// A group names its symbols one by one ("CONFIG_IRQ_REMAP") or as exact families
// ("CONFIG_NVME_*": CONFIG_NVME and every CONFIG_NVME_<name>), never by a bare prefix:
// "CONFIG_DMAR*" would take in CONFIG_DMARD06, an IIO accelerometer.
struct ConfigGroup {
  std::string name;
  std::vector<std::string> patterns;  // symbols and families
};

// Why a group entry is neither a symbol nor a family; empty when it is one.
std::string config_pattern_error(std::string_view pattern);

bool config_group_matches(const ConfigGroup& group, std::string_view symbol);

struct ConfigSymbolChange {
  std::string symbol;
  std::optional<std::string> a;  // absent: not in that config
  std::optional<std::string> b;
};

struct ConfigDiff {
  struct Group {
    std::string name;
    std::vector<ConfigSymbolChange> changed;
  };
  std::vector<Group> groups;  // only groups with changes, in the order given
  std::vector<ConfigSymbolChange> other;
  bool comparable = false;  // both sides carry a config
};

// a and b are the snapshots' kernel.config objects ({source, symbols}).
ConfigDiff diff_kernel_config(const Json& a, const Json& b, const std::vector<ConfigGroup>& groups);

// What a symbol missing from one side's generated .config means, for every report format.
inline constexpr std::string_view kAbsentSymbolMeaning =
    "not in that generated .config: the symbol does not exist in that kernel, or its "
    "dependencies are off there";

// {source{a, b}, groups[{name, changed[{symbol, a?, b?}]}], other{count, by_prefix{}},
//  absent? (kAbsentSymbolMeaning, when a listed symbol is missing on a side)}.
Json config_diff_json(const ConfigDiff& diff, const Json& a, const Json& b);

// "CONFIG_DRM_I915" -> "DRM": the first word after CONFIG_, how Kconfig names subsystems.
std::string config_prefix(const std::string& symbol);

}  // namespace kdrift
