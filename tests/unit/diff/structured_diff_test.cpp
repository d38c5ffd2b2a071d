#include "diff/structured_diff.h"

#include <gtest/gtest.h>

#include "diff/config_diff.h"

namespace kdrift {
namespace {

TEST(StructuredDiff, PairsArrayElementsByIdentityNotPosition) {
  const Json a = Json::parse(R"({"iommu": {"devices": [
      {"device": "nvme0n1", "mode": "none"}, {"device": "nvme1n1", "mode": "none"}]}})");
  const Json b = Json::parse(R"({"iommu": {"devices": [
      {"device": "nvme1n1", "mode": "none"}, {"device": "nvme0n1", "mode": "passthrough"}]}})");
  const auto changes = diff_snapshots(a, b);
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(render_path(changes[0].path), "iommu.devices[nvme0n1].mode");
  EXPECT_EQ(describe_change(changes[0].a, changes[0].b), "none → passthrough");
}

// Unknown on one side is a difference of its own kind, never a change of setting, and the
// "unavailable" maps themselves are not compared.
TEST(StructuredDiff, UnknownOnOneSideIsNotAChange) {
  const Json a = Json::parse(R"({"iommu": {"devices": [
      {"device": "nvme0n1", "pci": "0000:01:00.0", "unavailable": {"mode": "not captured"}}],
      "unavailable": {"groups": "/sys/kernel/iommu_groups: No such file or directory"}},
      "sysctl": {"unavailable": {"*": "/proc/sys: Permission denied"}}})");
  const Json b = Json::parse(R"({"iommu": {"devices": [
      {"device": "nvme0n1", "pci": "0000:01:00.0", "mode": "translated-lazy"}],
      "groups": [{"group": 3, "type": "DMA-FQ"}]},
      "sysctl": {"vm.swappiness": 60, "unavailable": {"fs.aio-nr": "reworded"}}})");
  const auto changes = diff_snapshots(a, b);
  EXPECT_EQ(changes_json(changes), Json::object());
  const Json unknown = unknown_differences_json(changes);
  EXPECT_EQ(unknown["iommu"],
            Json::parse(R"([{"path": "iommu.devices[nvme0n1].mode", "a_unknown": "not captured",
                             "b": "translated-lazy"},
                            {"path": "iommu.groups", "b": [{"group": 3, "type": "DMA-FQ"}],
                             "a_unknown": "/sys/kernel/iommu_groups: No such file or directory"}])"));
  EXPECT_EQ(unknown["sysctl"][0]["a_unknown"], "/proc/sys: Permission denied");
  // The other way round, the reason is B's.
  const Json reverse = unknown_differences_json(diff_snapshots(b, a));
  EXPECT_EQ(reverse["iommu"][0]["b_unknown"], "not captured");
  EXPECT_EQ(reverse["iommu"][0]["a"], "translated-lazy");
}

TEST(StructuredDiff, LeavesOutNoise) {
  const Json a = Json::parse(R"({
    "capture": {"captured_at": "2026-11-30T10:00:00Z"},
    "kernel": {"boot_id": "1", "release": "6.1"},
    "block": {"devices": {"vda": {"stat": {"read_ios": 1}, "queue": {"nomerges": 0}}}},
    "sysctl": {"fs.aio-nr": 0},
    "irq": {"storage": [{"name": "nvme0q1", "irq": 30, "counts": [1, 2], "total": 3}]},
    "environment": {"hostname": "db1"},
    "nvme": {"controllers": {"nvme0": {"serial": "S1"}}}
  })");
  const Json b = Json::parse(R"({
    "capture": {"captured_at": "2026-11-30T11:00:00Z"},
    "kernel": {"boot_id": "2", "release": "6.1"},
    "block": {"devices": {"vda": {"stat": {"read_ios": 9}, "queue": {"nomerges": 0}}}},
    "sysctl": {"fs.aio-nr": 128},
    "irq": {"storage": [{"name": "nvme0q1", "irq": 31, "counts": [5, 2], "total": 7}]},
    "environment": {"hostname": "db2"},
    "nvme": {"controllers": {"nvme0": {"serial": "S2"}}}
  })");
  const auto changes = diff_snapshots(a, b);
  EXPECT_TRUE(changes.empty()) << changes_json(changes).dump(2);
}

TEST(StructuredDiff, ReportsAddedRemovedAndChangedBySection) {
  const Json a = Json::parse(R"({"sysctl": {"vm.swappiness": 60, "kernel.x": 1}})");
  const Json b = Json::parse(R"({"sysctl": {"vm.swappiness": 10, "kernel.y": 1}})");
  const Json json = changes_json(diff_snapshots(a, b));
  ASSERT_EQ(json["sysctl"].size(), 3U);
  EXPECT_EQ(json["sysctl"][0]["path"], "sysctl.\"kernel.x\"");
  EXPECT_FALSE(json["sysctl"][0].contains("b"));
  EXPECT_FALSE(json["sysctl"][1].contains("a"));
  EXPECT_EQ(json["sysctl"][2]["a"], 60);
  EXPECT_EQ(json["sysctl"][2]["b"], 10);
}

TEST(ConfigDiff, GroupsByMeaningAndCountsTheRest) {
  const Json a = Json::parse(R"({"source": "/boot/config-a", "symbols": {
      "CONFIG_INTEL_IOMMU_DEFAULT_ON": "n", "CONFIG_NVME_MULTIPATH": "y",
      "CONFIG_DRM_I915": "m", "CONFIG_DRM_AST": "m", "CONFIG_SAME": "y"}})");
  const Json b = Json::parse(R"({"source": "/boot/config-b", "symbols": {
      "CONFIG_INTEL_IOMMU_DEFAULT_ON": "y", "CONFIG_IO_URING": "y",
      "CONFIG_DRM_I915": "y", "CONFIG_SAME": "y"}})");
  const std::vector<ConfigGroup> groups = {{"IOMMU", {"CONFIG_INTEL_IOMMU_*"}},
                                           {"NVMe", {"CONFIG_NVME_*"}},
                                           {"io_uring", {"CONFIG_IO_URING"}}};
  const ConfigDiff diff = diff_kernel_config(a, b, groups);
  ASSERT_TRUE(diff.comparable);
  ASSERT_EQ(diff.groups.size(), 3U);
  EXPECT_EQ(diff.groups[0].name, "IOMMU");
  EXPECT_EQ(diff.groups[1].changed[0].b, std::nullopt);  // NVMe multipath gone
  EXPECT_EQ(diff.groups[2].changed[0].a, std::nullopt);  // io_uring new
  const Json json = config_diff_json(diff, a, b);
  EXPECT_EQ(json["other"]["count"], 2);
  EXPECT_EQ(json["other"]["by_prefix"]["DRM"], 2);
  EXPECT_EQ(json["source"]["b"], "/boot/config-b");
}

TEST(ConfigDiff, NotComparableWithoutSymbolsOnBothSides) {
  EXPECT_FALSE(
      diff_kernel_config(Json::object(), Json::parse(R"({"symbols": {}})"), {}).comparable);
}

}  // namespace
}  // namespace kdrift
