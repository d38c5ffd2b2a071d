#include "collect/pci.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "collect/device_path.h"
#include "kernel_facts/pci_link.h"
#include "support/fixtures.h"
#include "unit/collect/storage_tree.h"
#include "util/access_log.h"

namespace kdrift {
namespace {

using testing::ConfigSpace;
using testing::StorageTree;
using testing::TempDir;

// What capture records: the collector's facts, and the schema's link verdict judged from them.
Json recorded_pci(const SysRoot& root) {
  Json pci = collect_pci(root);
  judge_pci_links(pci);
  return pci;
}

// An NVMe controller behind a root port whose link trained to 2.5 GT/s x1 of 8 GT/s x4, a
// network controller (not kept), and a legacy virtio-blk function without PCIe.
class PciHost : public ::testing::Test {
 protected:
  void SetUp() override {
    const StorageTree sys(tree_);
    port_ = sys.pci_function("0000:00:1c.0", "",
                             {.vendor_id = 0x8086,
                              .device_id = 0xa110,
                              .class_code = 0x060400,
                              .header_type = 1,
                              .port_type = 4,
                              .speed = 1,
                              .width = 1});
    tree_.write(port_ + "/current_link_speed", "2.5 GT/s PCIe\n");
    tree_.write(port_ + "/max_link_speed", "8.0 GT/s PCIe\n");
    tree_.write(port_ + "/current_link_width", "1\n");
    tree_.write(port_ + "/max_link_width", "4\n");
    tree_.symlink(port_ + "/driver", "../../../bus/pci/drivers/pcieport");

    nvme_ = sys.pci_function("0000:01:00.0", port_, {.speed = 1, .width = 1});
    tree_.write(nvme_ + "/current_link_speed", "2.5 GT/s PCIe\n");
    tree_.write(nvme_ + "/max_link_speed", "8.0 GT/s PCIe\n");
    tree_.write(nvme_ + "/current_link_width", "1\n");
    tree_.write(nvme_ + "/max_link_width", "4\n");
    tree_.write(nvme_ + "/numa_node", "0\n");
    tree_.write(nvme_ + "/aer_dev_correctable", "RxErr 0\nBadTLP 3\nTOTAL_ERR_COR 3\n");
    tree_.write(nvme_ + "/aer_dev_fatal", "Undefined 0\nDLP 0\nTOTAL_ERR_FATAL 0\n");
    tree_.write(nvme_ + "/aer_dev_nonfatal", "Undefined 0\nTOTAL_ERR_NONFATAL 0\n");
    tree_.symlink(nvme_ + "/driver", "../../../../bus/pci/drivers/nvme");
    sys.iommu_group(7, "DMA-FQ", {nvme_});

    sys.pci_function("0000:00:03.0", "", {.vendor_id = 0x1af4, .class_code = 0x020000});
    virtio_ = sys.pci_function("0000:00:02.0", "",
                               {.vendor_id = 0x1af4,
                                .device_id = 0x1042,
                                .class_code = 0x018000,
                                .revision = 1,
                                .pcie = false});
  }

  Json devices() const {
    Json pci = recorded_pci(SysRoot(tree_.path()));
    return pci.value("devices", Json::object());
  }

  TempDir tree_;
  std::string port_, nvme_, virtio_;
};

TEST_F(PciHost, KeepsStorageAndTheBridgesAboveIt) {
  Json found = devices();
  std::vector<std::string> addresses;
  for (const auto& [address, device] : found.items()) {
    addresses.push_back(address);
  }
  EXPECT_EQ(addresses, (std::vector<std::string>{"0000:00:02.0", "0000:00:1c.0", "0000:01:00.0"}));
  EXPECT_EQ(found["0000:01:00.0"]["role"], "storage");
  EXPECT_EQ(found["0000:01:00.0"]["upstream"], Json::array({"0000:00:1c.0"}));
  EXPECT_EQ(found["0000:00:1c.0"]["role"], "bridge");
  EXPECT_EQ(found["0000:00:02.0"]["upstream"], Json::array());
}

TEST_F(PciHost, NvmeIdsDriverLinkAndPayload) {
  Json nvme = devices()["0000:01:00.0"];
  EXPECT_EQ(nvme["vendor_id"], "144d");
  EXPECT_EQ(nvme["device_id"], "a808");
  EXPECT_EQ(nvme["subsystem_vendor_id"], "144d");
  EXPECT_EQ(nvme["subsystem_device_id"], "a801");
  EXPECT_EQ(nvme["class"], "010802");
  EXPECT_EQ(nvme["driver"], "nvme");
  EXPECT_EQ(nvme["numa_node"], 0);
  EXPECT_EQ(nvme["iommu_group"], 7);
  EXPECT_EQ(nvme["pcie"], true);
  EXPECT_EQ(nvme["pcie_type"], "endpoint");
  EXPECT_EQ(nvme["max_payload_supported_bytes"], 512);
  EXPECT_EQ(nvme["max_payload_bytes"], 256);
  EXPECT_EQ(nvme["max_read_request_bytes"], 512);
  EXPECT_EQ(nvme["link"]["current_link_speed"], "2.5 GT/s PCIe");
  EXPECT_EQ(nvme["link"]["max_link_width"], 4);
  EXPECT_EQ(nvme["link"]["config"], (Json{{"current_speed_gts", 2.5},
                                          {"max_speed_gts", 8.0},
                                          {"current_width", 1},
                                          {"max_width", 4}}));
  EXPECT_EQ(nvme["link_degraded"], true);
  EXPECT_EQ(nvme["aer"]["correctable"]["BadTLP"], 3);
  EXPECT_EQ(nvme["aer"]["fatal"]["TOTAL_ERR_FATAL"], 0);
  EXPECT_FALSE(nvme.contains("unavailable")) << nvme["unavailable"].dump();
}

TEST_F(PciHost, NamesComeFromThePciIdDatabase) {
  Json nvme = devices()["0000:01:00.0"];
  if (nvme["unavailable"].contains("names")) GTEST_SKIP() << nvme["unavailable"]["names"];
  EXPECT_NE(nvme["vendor_name"].get<std::string>().find("Samsung"), std::string::npos);
  EXPECT_FALSE(nvme["device_name"].get<std::string>().empty());
  EXPECT_EQ(nvme["class_name"], "Non-Volatile memory controller");
}

TEST_F(PciHost, TheCollectorRecordsTheLinkFactsButNoVerdict) {
  const Json pci = collect_pci(SysRoot(tree_.path()));
  for (const auto& [address, device] : pci["devices"].items()) {
    EXPECT_FALSE(device.contains("link_degraded")) << address;
    EXPECT_FALSE(device.contains("link_partner")) << address;
  }
  const Json& nvme = pci["devices"]["0000:01:00.0"];
  EXPECT_EQ(nvme["link"]["current_link_width"], 1);
  EXPECT_EQ(nvme["link"]["config"]["max_width"], 4);
}

TEST_F(PciHost, BothEndsOfADowntrainedLinkSayIt) {
  Json found = devices();
  Json port = found["0000:00:1c.0"];
  EXPECT_EQ(port["pcie_type"], "root_port");
  EXPECT_EQ(port["driver"], "pcieport");
  EXPECT_EQ(port["link_degraded"], true);
  EXPECT_EQ(port["link_partner"], "0000:01:00.0");
  EXPECT_EQ(found["0000:01:00.0"]["link_partner"], "0000:00:1c.0");
  EXPECT_FALSE(port.contains("aer"));  // no AER files: nothing to report, nothing failed
  EXPECT_FALSE(port.contains("iommu_group"));
}

// What QEMU's default root port does: 8 GT/s x4 above an NVMe that can do 2.5 GT/s x1. The link
// runs as fast as the slower end allows: slow, not degraded.
TEST_F(PciHost, FastPortAboveASlowDeviceIsNotDegraded) {
  tree_.write(nvme_ + "/config",
              testing::config_space({.max_speed = 1, .max_width = 1, .speed = 1, .width = 1}));
  tree_.write(nvme_ + "/max_link_speed", "2.5 GT/s PCIe\n");
  tree_.write(nvme_ + "/max_link_width", "1\n");
  Json found = devices();
  EXPECT_EQ(found["0000:01:00.0"]["link_degraded"], false);
  EXPECT_EQ(found["0000:00:1c.0"]["link_degraded"], false);
}

TEST_F(PciHost, ConventionalPciFunctionHasNoLink) {
  Json virtio = devices()["0000:00:02.0"];
  EXPECT_EQ(virtio["pcie"], false);
  EXPECT_EQ(virtio["revision"], "01");
  EXPECT_FALSE(virtio.contains("link"));
  EXPECT_FALSE(virtio.contains("link_degraded"));
  EXPECT_FALSE(virtio.contains("driver"));  // unbound
}

TEST_F(PciHost, SysfsAndConfigSpaceDisagreeing) {
  tree_.write(nvme_ + "/current_link_speed", "8.0 GT/s PCIe\n");
  tree_.write(nvme_ + "/current_link_width", "4\n");
  Json nvme = devices()["0000:01:00.0"];
  EXPECT_FALSE(nvme.contains("link_degraded"));
  EXPECT_NE(nvme["unavailable"]["link_degraded"].get<std::string>().find("disagree"),
            std::string::npos);
}

TEST_F(PciHost, ConfigSpaceIsReadOnlyAsFarAsNeeded) {
  tree_.write(nvme_ + "/config",
              testing::config_space({.speed = 1, .width = 1}) + std::string(3840, '\xee'));
  SysRoot root(tree_.path());
  AccessLog log;
  root.record_to(&log);
  Json pci = recorded_pci(root);
  EXPECT_EQ(pci["devices"]["0000:01:00.0"]["link_degraded"], true);
  EXPECT_EQ(log.files().at("/" + nvme_ + "/config").size(), 256u);
  // The network controller's config space is never read: its class file decided.
  EXPECT_EQ(log.files().count("/sys/devices/pci0000:00/0000:00:03.0/config"), 0u);
}

TEST_F(PciHost, BrokenConfigSpacesAreUnavailableNotFatal) {
  tree_.write(virtio_ + "/config", "");
  tree_.write(nvme_ + "/config", testing::config_space({}).substr(0, 64));
  Json found = devices();
  EXPECT_NE(found["0000:00:02.0"]["unavailable"]["config"].get<std::string>().find("64-byte"),
            std::string::npos);
  Json nvme = found["0000:01:00.0"];
  EXPECT_EQ(nvme["vendor_id"], "144d");
  EXPECT_NE(nvme["unavailable"]["pcie"].get<std::string>().find("256"), std::string::npos);
  // The kernel's link attributes are still recorded, but without the registers neither end's
  // role on the link is known.
  EXPECT_EQ(nvme["link"]["current_link_width"], 1);
  EXPECT_NE(nvme["unavailable"]["link_degraded"].get<std::string>().find("type unknown"),
            std::string::npos);
}

TEST_F(PciHost, CapabilityListRunningOffTheEndOrLooping) {
  tree_.write(nvme_ + "/config", testing::config_space({.capability_pointer = 0xfc}));
  std::string looping = testing::config_space({});
  looping[0x41] = 0x40;  // the PCIe capability names itself as the next one
  tree_.write(port_ + "/config", looping);
  Json found = devices();
  EXPECT_EQ(found["0000:01:00.0"]["pcie"], true);
  EXPECT_TRUE(found["0000:01:00.0"]["unavailable"].contains("pcie_type"));
  EXPECT_EQ(found["0000:00:1c.0"]["pcie_type"], "endpoint");
}

TEST_F(PciHost, OddEntriesAndFilesAreUnavailable) {
  tree_.mkdir("sys/bus/pci/devices/garbage");
  tree_.write("sys/devices/pci0000:00/0000:00:03.0/class", "network\n");
  tree_.write(nvme_ + "/aer_dev_fatal", "Undefined zero\n");
  tree_.write(nvme_ + "/numa_node", "");
  std::filesystem::remove(tree_.path() + "/" + nvme_ + "/current_link_width");
  tree_.mkdir(nvme_ + "/current_link_width");
  tree_.write(virtio_ + "/driver", "virtio-pci\n");  // a file where a link should be
  Json pci = recorded_pci(SysRoot(tree_.path()));
  EXPECT_TRUE(pci["unavailable"].contains("/sys/bus/pci/devices/garbage"));
  EXPECT_NE(pci["unavailable"]["/sys/bus/pci/devices/0000:00:03.0/class"].get<std::string>().find(
                "\"network\""),
            std::string::npos);
  Json nvme = pci["devices"]["0000:01:00.0"];
  EXPECT_TRUE(nvme["aer"]["unavailable"].contains("fatal"));
  EXPECT_EQ(nvme["aer"]["correctable"]["BadTLP"], 3);
  EXPECT_TRUE(nvme["unavailable"].contains("numa_node"));
  EXPECT_TRUE(nvme["link"]["unavailable"].contains("current_link_width"));
  EXPECT_EQ(nvme["link_degraded"], true);  // the config registers still tell
  EXPECT_TRUE(pci["devices"]["0000:00:02.0"]["unavailable"].contains("driver"));
}

TEST(PciEmptyTree, NoPciBusIsUnavailable) {
  TempDir tree;
  Json pci = recorded_pci(SysRoot(tree.path()));
  EXPECT_FALSE(pci.contains("devices"));
  EXPECT_TRUE(pci["unavailable"].contains("devices"));
}

TEST(PciLive, FindsVdasController) {
  const SysRoot root("/");
  auto vda = root.resolve("/sys/block/vda");
  if (!vda) GTEST_SKIP() << "no /sys/block/vda on this machine";
  const auto function = nearest_pci_function(*vda);
  if (!function) GTEST_SKIP() << "vda is not on PCI here: " << *vda;
  Json pci = recorded_pci(root);
  Json controller = pci["devices"][function->address];
  ASSERT_FALSE(controller.is_null()) << pci.dump();
  EXPECT_EQ(controller["role"], "storage");
  EXPECT_EQ(controller["class"].get<std::string>().substr(0, 2), "01");
  EXPECT_EQ(controller["vendor_id"].get<std::string>().size(), 4u);
}

}  // namespace
}  // namespace kdrift
