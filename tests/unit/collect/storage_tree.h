#pragma once
// Builds the sysfs shapes the storage collectors read (PCI functions, disks, IOMMU groups) in a
// TempDir, laid out and linked as real kernels do:
//   sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0/nvme0n1
//   sys/block/nvme0n1 -> ../devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0/nvme0n1
//   sys/bus/pci/devices/0000:01:00.0 -> ../../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0
//   <function>/iommu_group -> ../../../../kernel/iommu_groups/3

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/fixtures.h"

namespace kdrift::testing {

// The config space fields the collectors decode; the rest is zero.
struct ConfigSpace {
  uint16_t vendor_id = 0x144d;
  uint16_t device_id = 0xa808;
  uint32_t class_code = 0x010802;
  uint8_t revision = 0;
  uint8_t header_type = 0;  // 1 for a bridge
  bool pcie = true;
  int port_type = 0;  // PCIe device/port type: 0 endpoint, 4 root port
  int max_speed = 3;  // Link Capabilities speed code: 1 = 2.5 GT/s ... 3 = 8 GT/s
  int max_width = 4;
  int speed = 3;  // Link Status
  int width = 4;
  int payload_supported = 2;  // 128 << code bytes
  int payload = 1;
  int read_request = 2;
  uint8_t capability_pointer = 0x40;
};

// 256 bytes of config space with a PCIe capability at capability_pointer (when pcie).
std::string config_space(const ConfigSpace& config);

// "0x010802" as sysfs writes class codes.
std::string class_text(uint32_t class_code);

// A relative symlink target from the directory holding link to target, both relative to the
// tree's top ("sys/block/vda", "sys/devices/...").
std::string relative_target(std::string_view link, std::string_view target);

class StorageTree {
 public:
  explicit StorageTree(const TempDir& tree) : tree_(tree) {}

  // A PCI function below parent (a function's directory, or "" for the root bus pci0000:00) with
  // class, config and numa_node files and its /sys/bus/pci/devices link. Returns its directory.
  std::string pci_function(std::string_view address, std::string_view parent,
                           const ConfigSpace& config = {}) const;

  // A disk at <device>/<name> ("block/vda" for virtio, "nvme0n1" for NVMe) with size, ro,
  // removable, stat, dev, holders/, slaves/, a queue/ and one mq/ hardware queue; linked from
  // /sys/block/<name>. Returns its directory.
  std::string disk(std::string_view device, std::string_view subdirectory,
                   std::string_view name) const;

  // /sys/kernel/iommu_groups/<number>/{type,devices/} and each function's iommu_group link.
  void iommu_group(int number, std::string_view type,
                   const std::vector<std::string>& function_directories) const;

  // Kernel log records as /dev/kmsg hands them out.
  void kernel_log(const std::vector<std::string>& messages) const;

  void write(std::string_view relative, std::string_view content) const {
    tree_.write(relative, content);
  }
  void symlink(std::string_view link, std::string_view target) const;
  const std::string& path() const { return tree_.path(); }

 private:
  const TempDir& tree_;
};

}  // namespace kdrift::testing
