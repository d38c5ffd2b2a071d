#pragma once
// Whether kexec has cost this host devices before. A kexec skips the firmware, so a device it
// does not reset (some NVMe controllers, GPUs, NICs) can come up wrong or not at all in the
// kernel kexec started; a reboot bisect avoids that, at the price of the firmware's time. The
// boot history holds one snapshot per boot, each saying what started its kernel
// (kernel.loader_type) and which devices it had: a kexec'd boot is compared with the boot before
// it.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"

namespace kdrift {

// The x86 boot protocol's id for kexec in type_of_loader's high nibble.
inline constexpr int kKexecLoaderId = 0xD;

// The hardware a boot had, sorted: "pci ADDRESS (DRIVER)" for each PCI function with a driver
// bound, "block NAME" for each block device that is not a virtual one (loop, zram, ram, dm, md,
// nbd, rbd, drbd), whose coming and going says nothing about firmware.
std::vector<std::string> hardware_devices(const Json& snapshot);

struct BootRecord;

struct KexecDeviceHistory {
  size_t boots = 0;        // readable boots in the history
  size_t kexec_boots = 0;  // of them, started by kexec
  size_t compared = 0;     // kexec'd boots that had a readable boot right before them
  // One sentence per kexec'd boot that came up without hardware the boot before it had.
  std::vector<std::string> losses;
};

// boots as list_boots orders them (oldest first); a boot without loader_type (an older snapshot,
// another architecture) is not counted as kexec'd, nor as the opposite.
KexecDeviceHistory kexec_device_history(const std::vector<BootRecord>& boots);

// What the history says about kexec and devices here, for a person: the losses, or how many
// kexec'd boots kept everything, or that nothing in it can tell.
std::string describe_kexec_history(const KexecDeviceHistory& history, const std::string& directory);

}  // namespace kdrift
