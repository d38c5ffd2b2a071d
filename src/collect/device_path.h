#pragma once
// Where a sysfs device sits in the hardware: the PCI functions on its resolved /sys/devices path.
// "/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/nvme/nvme0" is nvme0 on function
// 0000:01:00.0 behind the bridge 0000:00:1c.0; a path with no such component (loop, zram, dm,
// NVMe-oF) has no PCI function.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift {

// "DDDD:BB:DD.F" in hex, as the kernel names PCI functions (domains may have more digits).
bool is_pci_address(std::string_view name);

struct PciFunction {
  std::string address;  // "0000:01:00.0"
  std::string path;     // "/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0"
};

// The PCI functions along a resolved sysfs path, the one nearest the root complex first.
std::vector<PciFunction> pci_functions_on_path(std::string_view resolved);

// The function the device itself belongs to: the last one on its path.
std::optional<PciFunction> nearest_pci_function(std::string_view resolved);

}  // namespace kdrift
