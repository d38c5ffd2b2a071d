#include "probe/block_device.h"

#include <blkid/blkid.h>
#include <sys/sysmacros.h>

#include <array>
#include <memory>

#include "util/text.h"

namespace kdrift {
namespace {

std::string device_number(unsigned major, unsigned minor) {
  return std::to_string(major) + ":" + std::to_string(minor);
}

// The device and its partitions, as "major:minor" -> name.
std::vector<std::pair<std::string, std::string>> device_and_partitions(
    const SysRoot& root, const BlockDeviceRef& device) {
  std::vector<std::pair<std::string, std::string>> out = {
      {device_number(device.major, device.minor), device.name}};
  if (device.partition) return out;
  auto entries = root.list_entries(device.sysfs);
  if (!entries) return out;
  for (const auto& entry : *entries) {
    if (entry.kind != EntryKind::kDirectory) continue;
    const std::string directory = device.sysfs + "/" + entry.name;
    if (!root.exists(directory + "/partition")) continue;
    if (auto number = root.read_value(directory + "/dev")) out.emplace_back(*number, entry.name);
  }
  return out;
}

}  // namespace

Result<BlockDeviceRef> find_block_device(const SysRoot& root, dev_t device) {
  BlockDeviceRef ref;
  ref.major = major(device);
  ref.minor = minor(device);
  const std::string number = device_number(ref.major, ref.minor);
  if (ref.major == 0) {
    return make_error(ENODEV, "device " + number +
                                  " is anonymous (btrfs, overlayfs, tmpfs, NFS): no block "
                                  "device of its own to measure");
  }
  auto sysfs = root.resolve("/sys/dev/block/" + number);
  if (!sysfs) return make_error(sysfs.error().code, "/sys/dev/block/" + number);
  ref.sysfs = *sysfs;
  ref.name = ref.sysfs.substr(ref.sysfs.rfind('/') + 1);
  ref.partition = root.exists(ref.sysfs + "/partition");
  ref.disk = ref.name;
  if (ref.partition) {
    const std::string parent = ref.sysfs.substr(0, ref.sysfs.rfind('/'));
    ref.disk = parent.substr(parent.rfind('/') + 1);
  }
  return ref;
}

std::vector<std::string> write_refusals(const SysRoot& root, const BlockDeviceRef& device,
                                        const Result<std::optional<std::string>>& signature) {
  std::vector<std::string> reasons;
  if (!signature) {
    reasons.push_back("cannot tell whether it holds data: " + signature.error().describe());
  } else if (*signature) {
    reasons.push_back("libblkid finds " + **signature + " on it");
  }
  const auto members = device_and_partitions(root, device);
  if (auto mounts = root.read("/proc/self/mountinfo")) {
    for (const auto& line : split_lines(*mounts)) {
      const auto fields = split_whitespace(line);
      if (fields.size() < 5) continue;
      for (const auto& [number, name] : members) {
        if (fields[2] == number) reasons.push_back(name + " is mounted on " + fields[4]);
      }
    }
  } else {
    reasons.push_back("cannot read the mount table: " + mounts.error().describe());
  }
  if (auto swaps = root.read("/proc/swaps")) {
    for (const auto& line : split_lines(*swaps)) {
      const auto fields = split_whitespace(line);
      if (fields.empty()) continue;
      for (const auto& [number, name] : members) {
        if (fields[0] == "/dev/" + name) reasons.push_back(name + " is in use as swap");
      }
    }
  }
  for (const auto& [number, name] : members) {
    const std::string holders_dir = "/sys/dev/block/" + number + "/holders";
    auto holders = root.list(holders_dir);
    if (!holders) {
      if (holders.error().code != ENOENT) {
        reasons.push_back("cannot list its holders: " + holders.error().describe());
      }
      continue;
    }
    for (const auto& holder : *holders) {
      reasons.push_back(name + " is held by " + holder + " (device-mapper, md or bcache)");
    }
  }
  return reasons;
}

Result<std::optional<std::string>> probe_signature(const std::string& device_node) {
  std::unique_ptr<std::remove_pointer_t<blkid_probe>, decltype(&blkid_free_probe)> probe(
      blkid_new_probe_from_filename(device_node.c_str()), &blkid_free_probe);
  if (!probe) return make_error(errno != 0 ? errno : EIO, "libblkid cannot open " + device_node);
  blkid_probe_enable_superblocks(probe.get(), 1);
  blkid_probe_set_superblocks_flags(probe.get(), BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
  blkid_probe_enable_partitions(probe.get(), 1);
  blkid_probe_set_partitions_flags(probe.get(), BLKID_PARTS_ENTRY_DETAILS);
  const int found = blkid_do_safeprobe(probe.get());
  if (found == 1) return std::optional<std::string>();
  if (found == -2) {
    return std::optional<std::string>("more than one signature (ambiguous probe)");
  }
  if (found < 0) return make_error(errno != 0 ? errno : EIO, "libblkid probe of " + device_node);
  const char* value = nullptr;
  for (const char* tag : {"TYPE", "PTTYPE"}) {
    if (blkid_probe_lookup_value(probe.get(), tag, &value, nullptr) == 0) {
      const std::string kind = std::string(tag) == "PTTYPE" ? " partition table" : " signature";
      return std::optional<std::string>("a " + std::string(value) + kind);
    }
  }
  return std::optional<std::string>("an unnamed signature");
}

std::optional<int> device_numa_node(const SysRoot& root, const BlockDeviceRef& device) {
  const std::string disk_sysfs =
      device.partition ? device.sysfs.substr(0, device.sysfs.rfind('/')) : device.sysfs;
  // NVMe namespaces sit under the controller, whose device link is the PCI function;
  // virtio-blk and SCSI disks have device/numa_node directly.
  for (const auto& path : std::array<std::string, 2>{
           {disk_sysfs + "/device/numa_node", disk_sysfs + "/device/device/numa_node"}}) {
    auto value = root.read_value(path);
    if (!value) continue;
    const auto node = parse_int(*value);
    if (node && *node >= 0) return static_cast<int>(*node);
    if (node) return std::nullopt;
  }
  return std::nullopt;
}

Result<TracedDisk> traced_disk(const SysRoot& root, const BlockDeviceRef& device) {
  TracedDisk disk{device.major, device.minor, device.disk,
                  root.exists("/sys/block/" + device.disk + "/mq")};
  if (!device.partition) return disk;
  const std::string path = "/sys/block/" + device.disk + "/dev";
  auto numbers = root.read_value(path);
  if (!numbers) return numbers.error();
  const auto parts = split(*numbers, ':');
  const auto major = parts.size() == 2 ? parse_uint(parts[0]) : std::nullopt;
  const auto minor = parts.size() == 2 ? parse_uint(parts[1]) : std::nullopt;
  if (!major || !minor) {
    return content_error(path + ": " + quote_value(*numbers) + " is not MAJOR:MINOR");
  }
  disk.major = static_cast<unsigned>(*major);
  disk.minor = static_cast<unsigned>(*minor);
  return disk;
}

}  // namespace kdrift
