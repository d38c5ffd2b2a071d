#include "collect/iommu.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "collect/device_path.h"
#include "support/fixtures.h"
#include "unit/collect/storage_tree.h"

namespace kdrift {
namespace {

using testing::StorageTree;
using testing::TempDir;

// A copy, so that looking up a missing key in a test gives null instead of undefined behaviour.
Json find_device(const Json& iommu, std::string_view name) {
  const auto devices = iommu.find("devices");
  if (devices == iommu.end()) return nullptr;
  for (const auto& record : *devices) {
    if (record.value("device", "") == name) return record;
  }
  return nullptr;
}

// Three NVMe controllers whose groups carry the three DMA API domain types, one without a
// group (no IOMMU translates it), and a loop device.
class IommuModes : public ::testing::Test {
 protected:
  void SetUp() override {
    const StorageTree sys(tree_);
    const char* types[] = {"DMA-FQ", "DMA", "identity"};
    for (int i = 0; i < 4; ++i) {
      const std::string address = "0000:00:0" + std::to_string(i + 3) + ".0";
      const std::string function = sys.pci_function(address, "");
      const std::string controller = "nvme" + std::to_string(i);
      sys.disk(function + "/nvme/" + controller, "", controller + "n1");
      if (i < 3) sys.iommu_group(i + 3, types[i], {function});
    }
    sys.disk("sys/devices/virtual/block", "", "loop0");
  }

  Json collect() const { return collect_iommu(SysRoot(tree_.path())); }

  TempDir tree_;
};

TEST_F(IommuModes, ModeInEffectPerDevice) {
  Json iommu = collect();
  struct Expected {
    const char* device;
    const char* pci;
    int group;
    const char* type;
    const char* mode;
  };
  for (const auto& expected : {Expected{"nvme0n1", "0000:00:03.0", 3, "DMA-FQ", "translated-lazy"},
                               Expected{"nvme1n1", "0000:00:04.0", 4, "DMA", "translated-strict"},
                               Expected{"nvme2n1", "0000:00:05.0", 5, "identity", "passthrough"}}) {
    SCOPED_TRACE(expected.device);
    Json record = find_device(iommu, expected.device);
    ASSERT_FALSE(record.is_null());
    EXPECT_EQ(record["pci"], expected.pci);
    EXPECT_EQ(record["iommu_group"], expected.group);
    EXPECT_EQ(record["domain_type"], expected.type);
    EXPECT_EQ(record["mode"], expected.mode);
  }
  Json ungrouped = find_device(iommu, "nvme3n1");
  ASSERT_FALSE(ungrouped.is_null());
  EXPECT_EQ(ungrouped["pci"], "0000:00:06.0");
  EXPECT_EQ(ungrouped["mode"], "none");
  EXPECT_FALSE(ungrouped.contains("iommu_group"));
  EXPECT_FALSE(ungrouped.contains("unavailable"));
  EXPECT_EQ(ungrouped["derived"]["mode"],
            Json::array({"iommu.groups", "no /sys/devices/pci0000:00/0000:00:06.0/iommu_group"}));

  Json loop = find_device(iommu, "loop0");
  ASSERT_FALSE(loop.is_null());
  EXPECT_EQ(loop["mode"], "none");
  EXPECT_FALSE(loop.contains("pci"));
}

// A sos report keeps neither /sys/kernel/iommu_groups nor the functions' iommu_group links: a
// function without a link is then not "none" but unknown, and says why.
TEST_F(IommuModes, WithoutTheGroupsAFunctionWithoutALinkIsUnknown) {
  std::filesystem::remove_all(tree_.path() + "/sys/kernel/iommu_groups");
  for (const char* function : {"0000:00:03.0", "0000:00:04.0", "0000:00:05.0"}) {
    std::filesystem::remove(tree_.path() + "/sys/devices/pci0000:00/" + function + "/iommu_group");
  }
  Json iommu = collect();
  EXPECT_TRUE(iommu["unavailable"].contains("groups"));
  for (const char* device : {"nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"}) {
    SCOPED_TRACE(device);
    Json record = find_device(iommu, device);
    ASSERT_FALSE(record.is_null());
    EXPECT_FALSE(record.contains("mode"));
    EXPECT_FALSE(record.contains("derived"));
    const std::string why = record["unavailable"]["mode"];
    EXPECT_NE(why.find("IOMMU groups were not captured"), std::string::npos) << why;
    EXPECT_NE(why.find("/sys/kernel/iommu_groups"), std::string::npos) << why;
  }
  // A device on no PCI function has no DMA an IOMMU could translate, whatever was captured.
  Json loop = find_device(iommu, "loop0");
  EXPECT_EQ(loop["mode"], "none");
  EXPECT_TRUE(loop["derived"].contains("mode"));
}

// An empty groups directory is a host without an IOMMU: no link means no translation.
TEST_F(IommuModes, AnEmptyGroupsDirectoryStillMeansNone) {
  std::filesystem::remove_all(tree_.path() + "/sys/kernel/iommu_groups");
  tree_.mkdir("sys/kernel/iommu_groups");
  for (const char* function : {"0000:00:03.0", "0000:00:04.0", "0000:00:05.0"}) {
    std::filesystem::remove(tree_.path() + "/sys/devices/pci0000:00/" + function + "/iommu_group");
  }
  Json record = find_device(collect(), "nvme0n1");
  ASSERT_FALSE(record.is_null());
  EXPECT_EQ(record["mode"], "none");
  EXPECT_FALSE(record.contains("unavailable"));
}

TEST_F(IommuModes, DevicesAreSortedAndGroupsNumerically) {
  const StorageTree sys(tree_);
  sys.iommu_group(10, "DMA", {sys.pci_function("0000:00:1f.0", "")});
  Json iommu = collect();
  std::vector<std::string> devices;
  for (const auto& record : iommu["devices"]) {
    devices.push_back(record["device"]);
  }
  EXPECT_EQ(devices,
            (std::vector<std::string>{"loop0", "nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"}));
  std::vector<int> groups;
  for (const auto& group : iommu["groups"]) {
    groups.push_back(group["group"]);
  }
  EXPECT_EQ(groups, (std::vector<int>{3, 4, 5, 10}));
  EXPECT_EQ(iommu["groups"][0]["devices"], Json::array({"0000:00:03.0"}));
}

TEST_F(IommuModes, BlockedAndUnmanagedGroupsAreNoDmaApiMode) {
  tree_.write("sys/kernel/iommu_groups/5/type", "unmanaged\n");
  Json record = find_device(collect(), "nvme2n1");
  ASSERT_FALSE(record.is_null());
  EXPECT_EQ(record["domain_type"], "unmanaged");
  EXPECT_EQ(record["mode"], "unknown");
}

TEST_F(IommuModes, UnreadableGroupTypeMakesTheModeUnknown) {
  std::filesystem::remove(tree_.path() + "/sys/kernel/iommu_groups/4/type");
  tree_.mkdir("sys/kernel/iommu_groups/4/type");  // a directory where a file should be
  Json iommu = collect();
  EXPECT_TRUE(iommu["groups"][1]["unavailable"].contains("type"));
  Json record = find_device(iommu, "nvme1n1");
  ASSERT_FALSE(record.is_null());
  EXPECT_EQ(record["iommu_group"], 4);
  EXPECT_FALSE(record.contains("mode"));
  EXPECT_TRUE(record["unavailable"].contains("mode"));
  EXPECT_TRUE(record["unavailable"].contains("domain_type"));
}

TEST_F(IommuModes, IommuGroupThatIsNoLinkIsUnavailable) {
  tree_.mkdir("sys/devices/pci0000:00/0000:00:06.0/iommu_group");
  Json record = find_device(collect(), "nvme3n1");
  ASSERT_FALSE(record.is_null());
  EXPECT_FALSE(record.contains("mode"));
  EXPECT_TRUE(record["unavailable"].contains("mode"));
  EXPECT_TRUE(record["unavailable"].contains("iommu_group"));
}

TEST_F(IommuModes, IommuGroupLinkToGarbageShowsTheTarget) {
  tree_.symlink("sys/devices/pci0000:00/0000:00:06.0/iommu_group", "../banana");
  Json record = find_device(collect(), "nvme3n1");
  ASSERT_FALSE(record.is_null());
  EXPECT_FALSE(record.contains("mode"));
  EXPECT_TRUE(record["unavailable"].contains("mode"));
  EXPECT_NE(record["unavailable"]["iommu_group"].get<std::string>().find("banana"),
            std::string::npos);
}

TEST_F(IommuModes, SymlinkLoopInSysBlockIsUnavailableNotAHang) {
  tree_.symlink("sys/block/sdz", "sdz");
  Json record = find_device(collect(), "sdz");
  ASSERT_FALSE(record.is_null());
  EXPECT_FALSE(record.contains("mode"));
  EXPECT_TRUE(record["unavailable"].contains("mode"));
  EXPECT_NE(record["unavailable"]["path"].get<std::string>().find("Too many levels"),
            std::string::npos);
}

TEST(IommuMultipath, HeadTakesTheModeOfItsPathDevices) {
  TempDir tree;
  const StorageTree sys(tree);
  const std::string function = sys.pci_function("0000:00:03.0", "");
  sys.disk(function + "/nvme/nvme0", "", "nvme0c0n1");
  sys.disk("sys/devices/virtual/nvme-subsystem/nvme-subsys0", "", "nvme0n1");
  sys.iommu_group(3, "DMA", {function});
  Json iommu = collect_iommu(SysRoot(tree.path()));
  Json head = find_device(iommu, "nvme0n1");
  ASSERT_FALSE(head.is_null());
  EXPECT_EQ(head["paths"], Json::array({"nvme0c0n1"}));
  EXPECT_EQ(head["mode"], "translated-strict");
  EXPECT_EQ(head["derived"]["mode"], Json::array({"iommu.devices[nvme0c0n1].mode"}));
  Json path = find_device(iommu, "nvme0c0n1");
  ASSERT_FALSE(path.is_null());
  EXPECT_EQ(path["pci"], "0000:00:03.0");
}

TEST(IommuUnits, IntelAndAmdUnitsWithTheirRegisters) {
  TempDir tree;
  const StorageTree sys(tree);
  tree.write("sys/devices/virtual/iommu/dmar0/intel-iommu/cap", "d2008c40660462\n");
  tree.write("sys/devices/virtual/iommu/dmar0/intel-iommu/version", "1:0\n");
  tree.write("sys/devices/virtual/iommu/dmar0/intel-iommu/domains_used", "10\n");
  tree.mkdir("sys/devices/virtual/iommu/dmar0/devices");
  sys.symlink("sys/class/iommu/dmar0", "sys/devices/virtual/iommu/dmar0");
  const std::string amd = sys.pci_function("0000:00:00.2", "", {.class_code = 0x080600});
  tree.write(amd + "/iommu/ivhd0/amd-iommu/features", "25bf732fa2295afe\n");
  sys.symlink("sys/class/iommu/ivhd0", amd + "/iommu/ivhd0");
  tree.symlink("sys/class/iommu/broken", "broken");

  Json iommu = collect_iommu(SysRoot(tree.path()));
  Json& units = iommu["units"];
  EXPECT_EQ(units["dmar0"]["type"], "intel-iommu");
  EXPECT_EQ(units["dmar0"]["path"], "/sys/devices/virtual/iommu/dmar0");
  EXPECT_EQ(units["dmar0"]["attributes"]["cap"], "d2008c40660462");
  EXPECT_EQ(units["dmar0"]["attributes"]["domains_used"], "10");  // registers stay text
  EXPECT_FALSE(units["dmar0"].contains("pci"));
  EXPECT_EQ(units["ivhd0"]["type"], "amd-iommu");
  EXPECT_EQ(units["ivhd0"]["pci"], "0000:00:00.2");
  EXPECT_TRUE(units["unavailable"].contains("broken"));
}

TEST(IommuCmdline, RelatedKeysWithTheValueInForce) {
  TempDir tree;
  tree.write("proc/cmdline",
             "BOOT_IMAGE=/vmlinuz intel_iommu=on,sm_on iommu=pt quiet iommu=nopt "
             "iommu.strict=1 iommu.passthrough=0 amd_iommu=off nvme.poll_queues=2\n");
  Json iommu = collect_iommu(SysRoot(tree.path()));
  EXPECT_EQ(iommu["cmdline"], (Json{{"intel_iommu", "on,sm_on"},
                                    {"iommu", "nopt"},
                                    {"iommu.strict", "1"},
                                    {"iommu.passthrough", "0"},
                                    {"amd_iommu", "off"}}));
}

TEST(IommuKernelLog, KeepsTheIommuLinesOnly) {
  TempDir tree;
  const StorageTree sys(tree);
  sys.kernel_log({"Linux version 6.1.0-50-amd64", "DMAR: IOMMU enabled",
                  "pci 0000:00:03.0: Adding to iommu group 3",
                  "iommu: Default domain type: Translated ",
                  "iommu: DMA domain TLB invalidation policy: lazy mode ",
                  "AMD-Vi: Using strict mode due to virtualization",
                  "nvme nvme0: 2/0/2 default/read/poll queues"});
  Json iommu = collect_iommu(SysRoot(tree.path()));
  EXPECT_EQ(iommu["kernel_log"],
            Json::array({"DMAR: IOMMU enabled", "iommu: Default domain type: Translated ",
                         "iommu: DMA domain TLB invalidation policy: lazy mode ",
                         "AMD-Vi: Using strict mode due to virtualization"}));
}

TEST(IommuKernelLog, FloodIsCutAndCounted) {
  TempDir tree;
  std::vector<std::string> faults(150, "DMAR: DRHD: handling fault status reg 2");
  StorageTree(tree).kernel_log(faults);
  Json iommu = collect_iommu(SysRoot(tree.path()));
  EXPECT_EQ(iommu["kernel_log"].size(), 100u);
  EXPECT_EQ(iommu["kernel_log_omitted"], 50);
}

TEST(IommuEmptyTree, EverythingUnavailableWithReasons) {
  TempDir tree;
  Json iommu = collect_iommu(SysRoot(tree.path()));
  for (const char* key : {"units", "groups", "devices", "cmdline", "kernel_log"}) {
    EXPECT_FALSE(iommu.contains(key)) << key;
    EXPECT_TRUE(iommu["unavailable"].contains(key)) << key;
  }
}

TEST(IommuLive, VdaModeFollowsItsPciFunction) {
  const SysRoot root("/");
  auto vda = root.resolve("/sys/block/vda");
  if (!vda) GTEST_SKIP() << "no /sys/block/vda on this machine";
  Json iommu = collect_iommu(root);
  Json record = find_device(iommu, "vda");
  ASSERT_FALSE(record.is_null());
  const auto function = nearest_pci_function(*vda);
  ASSERT_TRUE(function.has_value()) << *vda;
  EXPECT_EQ(record["pci"], function->address);
  // This VM has no IOMMU: no group, so nothing translates vda's DMA.
  if (!root.exists(function->path + "/iommu_group")) {
    EXPECT_EQ(record["mode"], "none");
  }
  EXPECT_TRUE(iommu.contains("groups"));
}

}  // namespace
}  // namespace kdrift
