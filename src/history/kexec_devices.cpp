#include "history/kexec_devices.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string_view>

#include "history/boot_history.h"
#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::array<std::string_view, 8> kVirtualBlockPrefixes = {"loop", "zram", "ram", "dm-",
                                                                   "md",   "nbd",  "rbd", "drbd"};
// A sentence names at most this many devices; the rest are counted.
constexpr size_t kDevicesNamed = 6;

bool virtual_block_device(std::string_view name) {
  return std::any_of(kVirtualBlockPrefixes.begin(), kVirtualBlockPrefixes.end(),
                     [name](std::string_view prefix) { return name.starts_with(prefix); });
}

bool started_by_kexec(const BootRecord& boot) {
  return boot.loader_type && (*boot.loader_type >> 4) == kKexecLoaderId;
}

std::string boot_name(const BootRecord& boot) {
  return "the boot of " + quote_value(boot.release) + " at " + quote_value(boot.captured_at);
}

std::string device_list(const std::vector<std::string>& devices) {
  std::vector<std::string> named;
  for (size_t i = 0; i < devices.size() && i < kDevicesNamed; ++i)
    named.push_back(quote_value(devices[i]));
  std::string text = join(named, ", ");
  if (devices.size() > kDevicesNamed) {
    text += " and " + std::to_string(devices.size() - kDevicesNamed) + " more";
  }
  return text;
}

}  // namespace

std::vector<std::string> hardware_devices(const Json& snapshot) {
  std::vector<std::string> devices;
  if (const Json* pci = object_at(snapshot, {"pci", "devices"})) {
    for (const auto& [address, device] : pci->items()) {
      const std::string driver = device.is_object() ? text_member(device, "driver") : "";
      if (!driver.empty()) devices.push_back("pci " + address + " (" + driver + ")");
    }
  }
  if (const Json* block = object_at(snapshot, {"block", "devices"})) {
    for (const auto& [name, device] : block->items()) {
      if (!virtual_block_device(name)) devices.push_back("block " + name);
    }
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

KexecDeviceHistory kexec_device_history(const std::vector<BootRecord>& boots) {
  KexecDeviceHistory history;
  const BootRecord* before = nullptr;
  for (const BootRecord& boot : boots) {
    if (!boot.error.empty()) {
      before = nullptr;  // an unreadable boot breaks the chain: its devices are unknown
      continue;
    }
    ++history.boots;
    if (started_by_kexec(boot)) {
      ++history.kexec_boots;
      if (before != nullptr) {
        ++history.compared;
        std::vector<std::string> lost;
        std::set_difference(before->devices.begin(), before->devices.end(), boot.devices.begin(),
                            boot.devices.end(), std::back_inserter(lost));
        if (!lost.empty()) {
          history.losses.push_back(boot_name(boot) + ", started by kexec, came up without " +
                                   device_list(lost) + ", which " + boot_name(*before) + " had");
        }
      }
    }
    before = &boot;
  }
  return history;
}

std::string describe_kexec_history(const KexecDeviceHistory& history,
                                   const std::string& directory) {
  const std::string where =
      "the boot history (" + directory + ", " + std::to_string(history.boots) + " boots)";
  if (!history.losses.empty()) {
    return "kexec'd kernels lost devices on this host before: " + join(history.losses, "; ") +
           " (" + where + ")";
  }
  if (history.compared > 0) {
    return std::to_string(history.compared) + " kexec'd boots in " + where +
           " kept every device of the boot before them";
  }
  return "whether kexec'd kernels lose devices on this host is unknown: " + where +
         (history.kexec_boots > 0 ? " has no readable boot right before its kexec'd ones"
                                  : " holds no boot started by kexec");
}

}  // namespace kdrift
