// checks/kernel.config.toml's groups over three distributions' real configs
// (tests/fixtures/kernel-configs/README.md): the groups that list symbols one by one as I/O
// settings hold no IIO, sound, DRM or network driver, and do hold the symbols they are for.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "diff/config_diff.h"
#include "rules/rule_loader.h"
#include "support/fixtures.h"
#include "util/gzip.h"

namespace kdrift {
namespace {

const char* const kConfigs[] = {"debian-6.1.0-50-amd64", "ubuntu-6.8.0-52-generic",
                                "fedora-5.15.6-200.fc35.x86_64"};
const std::set<std::string> kIoGroups = {"IOMMU", "NVMe", "block", "io_uring"};

std::vector<std::string> config_lines(const std::string& name) {
  const std::string path =
      testing::source_dir() + "/tests/fixtures/kernel-configs/" + name + ".config.gz";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const auto text = gunzip(bytes.str(), path);
  if (!text) throw std::runtime_error(text.error().describe());
  std::vector<std::string> lines;
  std::istringstream stream(*text);
  for (std::string line; std::getline(stream, line);)
    lines.push_back(line);
  return lines;
}

// CONFIG_X of "CONFIG_X=..." or "# CONFIG_X is not set"; empty for anything else.
std::string symbol_of(const std::string& line) {
  std::string_view text = line;
  if (text.starts_with("# CONFIG_") && text.ends_with(" is not set")) {
    text.remove_prefix(2);
    return std::string(text.substr(0, text.find(' ')));
  }
  if (text.starts_with("CONFIG_")) return std::string(text.substr(0, text.find('=')));
  return {};
}

bool opens(const std::string& line, const std::vector<std::string>& markers) {
  return std::any_of(markers.begin(), markers.end(), [&](const std::string& marker) {
    return line == marker || symbol_of(line) == marker;
  });
}

// The symbols from the first line that is one of begin up to (not with) the first of end.
std::set<std::string> block(const std::vector<std::string>& lines,
                            const std::vector<std::string>& begin,
                            const std::vector<std::string>& end) {
  std::set<std::string> symbols;
  bool inside = false;
  for (const auto& line : lines) {
    if (!inside) {
      inside = opens(line, begin);
    } else if (opens(line, end)) {
      break;
    }
    if (inside && !symbol_of(line).empty()) symbols.insert(symbol_of(line));
  }
  return symbols;
}

const std::vector<ConfigGroup>& groups() {
  static const std::vector<Rule> rules = builtin_rules().value();
  static const std::vector<ConfigGroup> loaded = [] {
    for (const auto& rule : rules) {
      if (rule.id == "kernel.config") return rule.config_groups;
    }
    throw std::runtime_error("no kernel.config rule");
  }();
  return loaded;
}

std::string group_of(const std::string& symbol) {
  for (const auto& group : groups()) {
    if (config_group_matches(group, symbol)) return group.name;
  }
  return {};
}

struct DriverBlock {
  std::string name;
  std::vector<std::string> begin;
  std::vector<std::string> end;
  std::string member;  // a symbol the block must hold, so a moved marker fails loudly
};

const DriverBlock kBlocks[] = {
    {"IIO", {"CONFIG_IIO"}, {"CONFIG_NTB"}, "CONFIG_DMARD10"},
    {"sound", {"CONFIG_SOUND"}, {"# HID support", "CONFIG_HID_SUPPORT"}, "CONFIG_SND_HDA_INTEL"},
    {"DRM", {"# Graphics support"}, {"# end of Graphics support"}, "CONFIG_DRM_I915"},
    {"network drivers", {"CONFIG_NETDEVICES"}, {"# Input device support"}, "CONFIG_E1000E"},
};

TEST(KernelConfigGroups, NoDriverOfAnotherSubsystemLandsInAnIoGroup) {
  for (const char* name : kConfigs) {
    SCOPED_TRACE(name);
    const auto lines = config_lines(name);
    for (const auto& driver : kBlocks) {
      const auto symbols = block(lines, driver.begin, driver.end);
      EXPECT_GT(symbols.size(), 50U) << driver.name;
      EXPECT_EQ(symbols.count(driver.member), 1U) << driver.name;
      for (const auto& symbol : symbols) {
        EXPECT_EQ(kIoGroups.count(group_of(symbol)), 0U)
            << driver.name << " symbol " << symbol << " is in group " << group_of(symbol);
      }
    }
  }
}

TEST(KernelConfigGroups, IoSymbolsOfEveryConfigAreGrouped) {
  for (const char* name : kConfigs) {
    SCOPED_TRACE(name);
    std::set<std::string> present;
    for (const auto& line : config_lines(name)) {
      if (auto symbol = symbol_of(line); !symbol.empty()) present.insert(symbol);
    }
    for (const auto& [symbol, group] :
         {std::pair{"CONFIG_INTEL_IOMMU", "IOMMU"}, std::pair{"CONFIG_AMD_IOMMU", "IOMMU"},
          std::pair{"CONFIG_IOMMU_DEFAULT_DMA_LAZY", "IOMMU"},
          std::pair{"CONFIG_IRQ_REMAP", "IOMMU"}, std::pair{"CONFIG_BLK_DEV_NVME", "NVMe"},
          std::pair{"CONFIG_NVME_MULTIPATH", "NVMe"}, std::pair{"CONFIG_BLK_CGROUP", "block"},
          std::pair{"CONFIG_MQ_IOSCHED_DEADLINE", "block"},
          std::pair{"CONFIG_IO_URING", "io_uring"}}) {
      EXPECT_EQ(present.count(symbol), 1U) << symbol;
      EXPECT_EQ(group_of(symbol), group) << symbol;
    }
  }
  // The accelerometers that a CONFIG_DMAR* prefix took for the DMAR IOMMU.
  for (const char* accelerometer : {"CONFIG_DMARD06", "CONFIG_DMARD09", "CONFIG_DMARD10"}) {
    EXPECT_EQ(group_of(accelerometer), "") << accelerometer;
  }
  EXPECT_EQ(group_of("CONFIG_DMAR_TABLE"), "IOMMU");
}

TEST(KernelConfigGroups, EntriesAreSymbolsOrFamilies) {
  EXPECT_EQ(config_pattern_error("CONFIG_NVME_*"), "");
  EXPECT_EQ(config_pattern_error("CONFIG_IRQ_REMAP"), "");
  for (const char* prefix : {"CONFIG_DMAR*", "CONFIG_*_IOMMU*", "CONFIG_", "NVME_*", "CONFIG_a"}) {
    EXPECT_NE(config_pattern_error(prefix), "") << prefix;
  }
  const ConfigGroup nvme{"NVMe", {"CONFIG_NVME_*"}};
  EXPECT_TRUE(config_group_matches(nvme, "CONFIG_NVME"));
  EXPECT_TRUE(config_group_matches(nvme, "CONFIG_NVME_TCP"));
  EXPECT_FALSE(config_group_matches(nvme, "CONFIG_NVMEM_SYSFS"));
  EXPECT_FALSE(config_group_matches(nvme, "CONFIG_NVME_"));
}

}  // namespace
}  // namespace kdrift
