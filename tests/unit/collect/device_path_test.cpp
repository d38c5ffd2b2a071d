#include "collect/device_path.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(DevicePath, PciAddresses) {
  EXPECT_TRUE(is_pci_address("0000:00:02.0"));
  EXPECT_TRUE(is_pci_address("0000:3a:1f.7"));
  EXPECT_TRUE(is_pci_address("10000:01:00.0"));  // VMD domains have five digits
  for (const char* name : {"pci0000:00", "0000:00:02", "0000:00:02.8", "0000:0:02.0", "nvme0",
                           "0000:00:02.0.1", "", "zzzz:00:02.0", "0000:00:2g.0"}) {
    EXPECT_FALSE(is_pci_address(name)) << name;
  }
}

TEST(DevicePath, FunctionsFromTheRootComplexDown) {
  const auto functions =
      pci_functions_on_path("/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0/nvme0n1");
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_EQ(functions[0].address, "0000:00:1c.0");
  EXPECT_EQ(functions[0].path, "/sys/devices/pci0000:00/0000:00:1c.0");
  EXPECT_EQ(functions[1].address, "0000:01:00.0");
  EXPECT_EQ(functions[1].path, "/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0");
  EXPECT_EQ(nearest_pci_function("/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda")->address,
            "0000:00:02.0");
}

TEST(DevicePath, VirtualDevicesHaveNone) {
  EXPECT_FALSE(nearest_pci_function("/sys/devices/virtual/block/loop0").has_value());
  EXPECT_FALSE(
      nearest_pci_function("/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1").has_value());
  EXPECT_TRUE(pci_functions_on_path("").empty());
}

}  // namespace
}  // namespace kdrift
