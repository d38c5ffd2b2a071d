#pragma once
// Kernel config changes grouped by what they mean for I/O: the groups a rule file names (IOMMU,
// block, NVMe, io_uring, mitigations) symbol by symbol, everything else counted by prefix, as
// scripts/diffconfig lists them but sorted by relevance.

#include <string>
#include <vector>

#include "snapshot/snapshot.h"

namespace kdrift {

struct ConfigGroup {
  std::string name;
  std::vector<std::string> patterns;  // fnmatch(3) globs over symbol names: "CONFIG_IOMMU_*"
};

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

// {source{a, b}, groups[{name, changed[{symbol, a?, b?}]}], other{count, by_prefix{}}}.
Json config_diff_json(const ConfigDiff& diff, const Json& a, const Json& b);

// "CONFIG_DRM_I915" -> "DRM": the first word after CONFIG_, how Kconfig names subsystems.
std::string config_prefix(const std::string& symbol);

}  // namespace kdrift
