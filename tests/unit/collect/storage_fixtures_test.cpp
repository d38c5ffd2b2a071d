// The storage collectors over dumps of real QEMU guests (tests/fixtures/sysroots, made by
// scripts/lab/make-fixtures): the IOMMU mode in effect for the NVMe namespace, and the NVMe queue
// split, as each guest was booted.

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>

#include "collect/block.h"
#include "collect/iommu.h"
#include "collect/nvme.h"
#include "collect/pci.h"
#include "kernel_facts/pci_link.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

struct Guest {
  const char* fixture;
  const char* domain_type;  // nullptr: no IOMMU group
  const char* mode;
  const char* nvme_pci;
  const char* driver;  // "module" or "built-in"
  int poll_queues;     // nvme.poll_queues in force, and the poll queues the driver made
  int io_poll;
};

std::ostream& operator<<(std::ostream& out, const Guest& guest) {
  return out << guest.fixture;
}

class QemuGuest : public ::testing::TestWithParam<Guest> {
 protected:
  void SetUp() override {
    const auto& names = fixtures();
    if (std::find(names.begin(), names.end(), GetParam().fixture) == names.end()) {
      GTEST_SKIP() << "no fixture " << GetParam().fixture << " in tests/fixtures/sysroots";
    }
    root_ = testing::fixture_sysroot(GetParam().fixture);
  }

  static const std::vector<std::string>& fixtures() {
    static const auto names = testing::fixture_sysroot_names();
    return names;
  }

  SysRoot root_;
};

TEST_P(QemuGuest, IommuModeOfTheNvmeNamespace) {
  const Guest& guest = GetParam();
  Json iommu = collect_iommu(SysRoot(root_));
  Json record;
  for (const auto& device : iommu["devices"]) {
    if (device["device"] == "nvme0n1") record = device;
  }
  ASSERT_FALSE(record.is_null()) << iommu.dump();
  EXPECT_EQ(record["pci"], guest.nvme_pci);
  EXPECT_EQ(record["mode"], guest.mode);
  if (guest.domain_type != nullptr) {
    EXPECT_EQ(record["domain_type"], guest.domain_type);
  } else {
    EXPECT_FALSE(record.contains("iommu_group"));
  }
  EXPECT_FALSE(record.contains("unavailable")) << record.dump();
}

TEST_P(QemuGuest, NvmePollQueues) {
  const Guest& guest = GetParam();
  Json nvme = collect_nvme(SysRoot(root_));
  EXPECT_EQ(nvme["driver"], guest.driver);
  EXPECT_EQ(nvme["parameters"]["nvme"]["poll_queues"], guest.poll_queues);
  Json controller = nvme["controllers"]["nvme0"];
  EXPECT_EQ(controller["pci"], guest.nvme_pci);
  EXPECT_EQ(controller["transport"], "pcie");
  EXPECT_EQ(controller["queues"]["poll"], guest.poll_queues);
  EXPECT_EQ(controller["queues"]["read"], 0);
  EXPECT_EQ(controller["namespaces"]["nvme0n1"]["io_poll"], guest.io_poll);
}

TEST_P(QemuGuest, NvmeBlockDeviceAndPciFunction) {
  const Guest& guest = GetParam();
  Json block = collect_block(SysRoot(root_));
  Json disk = block["devices"]["nvme0n1"];
  EXPECT_EQ(disk["request_based"], true);
  EXPECT_EQ(disk["queue"]["io_poll"], guest.io_poll);
  EXPECT_TRUE(disk["scheduler"].contains("active")) << disk.dump();

  Json pci = collect_pci(SysRoot(root_));
  judge_pci_links(pci);
  Json controller = pci["devices"][guest.nvme_pci];
  EXPECT_EQ(controller["role"], "storage");
  EXPECT_EQ(controller["class"], "010802");
  EXPECT_EQ(controller["driver"], "nvme");
  // QEMU's NVMe is slower than the root port above it: a slow link, not a degraded one.
  if (controller.contains("link_partner")) {
    EXPECT_EQ(controller["link_degraded"], false);
    EXPECT_EQ(pci["devices"][controller["link_partner"].get<std::string>()]["link_degraded"],
              false);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, QemuGuest,
    ::testing::Values(
        Guest{"intel-lazy", "DMA-FQ", "translated-lazy", "0000:01:00.0", "module", 0, 0},
        Guest{"intel-strict", "DMA", "translated-strict", "0000:01:00.0", "module", 0, 0},
        Guest{"intel-pt", "identity", "passthrough", "0000:01:00.0", "module", 0, 0},
        Guest{"intel-default", "DMA-FQ", "translated-lazy", "0000:01:00.0", "module", 0, 0},
        // AMD-Vi under virtualization forces strict mode although the log says lazy.
        Guest{"amd-iommu", "DMA", "translated-strict", "0000:00:02.0", "module", 0, 0},
        Guest{"no-iommu", nullptr, "none", "0000:01:00.0", "module", 0, 0},
        Guest{"cloud", nullptr, "none", "0000:01:00.0", "built-in", 2, 1},
        Guest{"generic-6.12", nullptr, "none", "0000:01:00.0", "module", 2, 1},
        Guest{"generic-6.12-no-poll", nullptr, "none", "0000:01:00.0", "module", 0, 0}),
    [](const ::testing::TestParamInfo<Guest>& info) {
      std::string name = info.param.fixture;
      std::replace(name.begin(), name.end(), '-', '_');
      std::replace(name.begin(), name.end(), '.', '_');
      return name;
    });

}  // namespace
}  // namespace kdrift
