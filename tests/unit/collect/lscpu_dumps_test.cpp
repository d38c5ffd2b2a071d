// Every dump of util-linux's lscpu test suite (tests/fixtures/lscpu, see its README) captured as
// `kdrift capture --root` captures it, against what lscpu prints for the same dump: CPU count,
// online list, NUMA node count, each node's CPU list, model name and, where lscpu reads it from
// the POWER device tree or s390's /proc/sysinfo, the hypervisor vendor.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>

#include "collect/capture.h"
#include "collect/ids.h"
#include "support/fixtures.h"
#include "util/archive_tree.h"
#include "util/sysroot_open.h"
#include "util/text.h"

namespace kdrift {
namespace {

namespace fs = std::filesystem;

std::string lscpu_dir() {
  return testing::source_dir() + "/tests/fixtures/lscpu";
}

std::vector<std::string> dump_names() {
  std::vector<std::string> names;
  if (!fs::is_directory(lscpu_dir() + "/dumps")) return names;  // AllTwentyTwoAreThere says so
  for (const auto& entry : fs::directory_iterator(lscpu_dir() + "/dumps")) {
    const std::string file = entry.path().filename().string();
    constexpr std::string_view kSuffix = ".tar.gz";
    if (file.size() > kSuffix.size() && file.ends_with(kSuffix)) {
      names.push_back(file.substr(0, file.size() - kSuffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// lscpu's summary (its output up to the first blank line): "Key: value", sub-keys indented, the
// first occurrence of a key kept (the first cpu type's model on a mixed Arm host).
std::map<std::string, std::string> lscpu_summary(const std::string& name) {
  const std::string text = testing::read_bytes(lscpu_dir() + "/expected/lscpu-" + name);
  std::map<std::string, std::string> summary;
  for (const auto& line : split_lines(text)) {
    if (trim(line).empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    summary.emplace(std::string(trim(std::string_view(line).substr(0, colon))),
                    std::string(trim(std::string_view(line).substr(colon + 1))));
  }
  return summary;
}

// lscpu's cpu lists: "0-3,8", or with a stride, "0-62:2" (every second cpu of 0-62).
std::vector<int> lscpu_list(const std::string& text) {
  std::vector<int> ids;
  for (const auto& item : split(text, ',')) {
    if (item.empty()) continue;
    const auto colon = item.find(':');
    const std::string range = item.substr(0, colon);
    const int stride = colon == std::string::npos ? 1 : std::stoi(item.substr(colon + 1));
    const auto dash = range.find('-');
    const int first = std::stoi(range.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    for (int id = first; id <= last; id += stride)
      ids.push_back(id);
  }
  return ids;
}

// Each dump sits under one top folder named for the machine: read as --root reads it, from the
// archive in memory.
Json capture_dump(const std::string& name) {
  const std::string archive = lscpu_dir() + "/dumps/" + name + ".tar.gz";
  auto root = open_sysroot(archive);
  if (!root) throw std::runtime_error(archive + ": " + root.error().describe());
  return capture_snapshot(*root);
}

class LscpuDump : public ::testing::TestWithParam<std::string> {
 protected:
  // The snapshot of one dump, made once per dump.
  static const Json& snapshot(const std::string& name) {
    static std::map<std::string, Json> made;
    if (const auto it = made.find(name); it != made.end()) return it->second;
    return made.emplace(name, capture_dump(name)).first->second;
  }
};

TEST_P(LscpuDump, CpusAsLscpuCountsThem) {
  const auto expected = lscpu_summary(GetParam());
  const Json& cpus = snapshot(GetParam())["cpu"]["cpus"];
  // lscpu's "CPU(s)" counts the present cpus.
  ASSERT_TRUE(cpus.contains("present")) << cpus.dump();
  EXPECT_EQ(std::to_string(cpus["present"]["count"].get<int>()), expected.at("CPU(s)"));
  ASSERT_TRUE(cpus.contains("online")) << cpus.dump();
  const auto online = parse_id_list(cpus["online"]["list"].get<std::string>(), "online");
  ASSERT_TRUE(online);
  EXPECT_EQ(*online, lscpu_list(expected.at("On-line CPU(s) list")));
}

TEST_P(LscpuDump, NodesAsLscpuListsThem) {
  const auto expected = lscpu_summary(GetParam());
  const Json& numa = snapshot(GetParam())["numa"];
  if (!expected.contains("NUMA node(s)")) {
    EXPECT_FALSE(numa.contains("nodes")) << numa.dump();
    return;
  }
  ASSERT_TRUE(numa.contains("nodes")) << numa.dump();
  EXPECT_EQ(std::to_string(numa["nodes"].size()), expected.at("NUMA node(s)"));
  for (const auto& node : numa["nodes"]) {
    const std::string key = "NUMA node" + std::to_string(node["node"].get<int>()) + " CPU(s)";
    ASSERT_TRUE(expected.contains(key)) << key;
    ASSERT_TRUE(node.contains("cpus")) << node.dump();
    EXPECT_EQ(node["cpus"].get<std::vector<int>>(), lscpu_list(expected.at(key))) << key;
  }
}

TEST_P(LscpuDump, ModelAsLscpuNamesIt) {
  const auto expected = lscpu_summary(GetParam());
  const Json& processor = snapshot(GetParam())["cpu"]["processor"];
  // lscpu prints "-" where the architecture names no model.
  const std::string model = expected.at("Model name");
  if (model == "-") {
    EXPECT_FALSE(processor.contains("model_name")) << processor.dump();
    EXPECT_TRUE(processor["unavailable"].contains("model_name")) << processor.dump();
  } else {
    EXPECT_EQ(processor.value("model_name", ""), model) << processor.dump();
  }
  if (expected.contains("Vendor ID")) {
    EXPECT_EQ(processor.value("vendor", ""), expected.at("Vendor ID")) << processor.dump();
  }
  EXPECT_TRUE(processor.contains("architecture")) << processor.dump();
}

TEST_P(LscpuDump, PowerAndS390HypervisorAsLscpuFindsIt) {
  const auto expected = lscpu_summary(GetParam());
  const Json& found = snapshot(GetParam())["environment"]["virtualization"]["platform_hypervisor"];
  const std::string architecture =
      snapshot(GetParam())["cpu"]["processor"].value("architecture", "");
  if (architecture != "powerpc" && architecture != "s390") {
    EXPECT_FALSE(found.contains("vendor")) << found.dump();
    return;
  }
  if (expected.contains("Hypervisor vendor")) {
    EXPECT_EQ(found.value("vendor", ""), expected.at("Hypervisor vendor")) << found.dump();
    EXPECT_EQ(found.value("type", ""), expected.at("Virtualization type")) << found.dump();
  } else {
    EXPECT_FALSE(found.contains("vendor")) << found.dump();
  }
  if (expected.contains("Hypervisor")) {
    EXPECT_EQ(found.value("hypervisor", ""), expected.at("Hypervisor")) << found.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(UtilLinux, LscpuDump, ::testing::ValuesIn(dump_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(LscpuDumps, AllTwentyTwoAreThere) {
  EXPECT_EQ(dump_names().size(), 22u);
}

// ppc64-POWER7-64cpu's archive holds proc/device-tree/ibm,partition-name twice, the same bytes
// both times (appended with tar -r): read, since neither copy can mean something else.
TEST(LscpuDumps, EveryArchiveIsReadInPlace) {
  for (const auto& name : dump_names()) {
    const auto tree = ArchiveTree::read_file(lscpu_dir() + "/dumps/" + name + ".tar.gz");
    EXPECT_TRUE(tree) << name << ": " << tree.error().describe();
  }
}

}  // namespace
}  // namespace kdrift
