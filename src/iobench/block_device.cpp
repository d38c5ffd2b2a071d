#include "iobench/block_device.h"

#include <blkid/blkid.h>
#include <fcntl.h>
#include <sys/sysmacros.h>

#include <array>
#include <memory>

#include "util/text.h"

namespace kdrift {
namespace {

std::string device_number(unsigned major, unsigned minor) {
  return std::to_string(major) + ":" + std::to_string(minor);
}

using ProbeHandle =
    std::unique_ptr<std::remove_pointer_t<blkid_probe>, decltype(&blkid_free_probe)>;

// The superblock and partition table probe on the caller's descriptor: libblkid never looks the
// device up by name, so it reads what the probe will write.
Result<std::optional<std::string>> probe_open_device(int fd, const std::string& name) {
  ProbeHandle probe(blkid_new_probe(), &blkid_free_probe);
  if (!probe) return make_error(ENOMEM, "libblkid probe of " + name);
  if (blkid_probe_set_device(probe.get(), fd, 0, 0) != 0) {
    return make_error(errno != 0 ? errno : EIO, "libblkid cannot use " + name);
  }
  blkid_probe_enable_superblocks(probe.get(), 1);
  blkid_probe_set_superblocks_flags(probe.get(), BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
  blkid_probe_enable_partitions(probe.get(), 1);
  blkid_probe_set_partitions_flags(probe.get(), BLKID_PARTS_ENTRY_DETAILS);
  const int found = blkid_do_safeprobe(probe.get());
  if (found == 1) return std::optional<std::string>();
  if (found == -2) {
    return std::optional<std::string>("more than one signature (ambiguous probe)");
  }
  if (found < 0) return make_error(errno != 0 ? errno : EIO, "libblkid probe of " + name);
  const char* value = nullptr;
  for (const char* tag : {"TYPE", "PTTYPE"}) {
    if (blkid_probe_lookup_value(probe.get(), tag, &value, nullptr) == 0) {
      const std::string kind = std::string(tag) == "PTTYPE" ? " partition table" : " signature";
      return std::optional<std::string>("a " + std::string(value) + kind);
    }
  }
  return std::optional<std::string>("an unnamed signature");
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

TargetIdentity device_and_partitions(const SysRoot& root, const BlockDeviceRef& device) {
  TargetIdentity out;
  const auto member = [](dev_t number) {
    FileIdentity identity;
    identity.block = true;
    identity.rdev = number;
    return identity;
  };
  out.members.emplace_back(member(makedev(device.major, device.minor)), device.name);
  if (device.partition) return out;
  auto entries = root.list_entries(device.sysfs);
  if (!entries) return out;
  for (const auto& entry : *entries) {
    if (entry.kind != EntryKind::kDirectory) continue;
    const std::string directory = device.sysfs + "/" + entry.name;
    if (!root.exists(directory + "/partition")) continue;
    auto number = root.read_value(directory + "/dev");
    auto parsed = number ? parse_device_number(*number) : std::nullopt;
    if (parsed) out.members.emplace_back(member(*parsed), entry.name);
  }
  return out;
}

std::vector<std::string> write_refusals(const SysRoot& root, const TargetIdentity& device,
                                        const Result<std::optional<std::string>>& signature,
                                        const DeviceUsers& users) {
  std::vector<std::string> reasons;
  if (!signature) {
    reasons.push_back("cannot tell whether it holds data: " + signature.error().describe());
  } else if (*signature) {
    reasons.push_back("libblkid finds " + **signature + " on it");
  }
  reasons.insert(reasons.end(), users.unknown.begin(), users.unknown.end());
  for (auto& reason : mounts_and_swaps(device, users))
    reasons.push_back(std::move(reason));
  for (const auto& [member, name] : device.members) {
    const std::string holders_dir =
        "/sys/dev/block/" + device_number(major(member.rdev), minor(member.rdev)) + "/holders";
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

Result<std::optional<std::string>> probe_signature(int fd, const std::string& name) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_DIRECT) != 0) {
    return make_error(errno, name + ": clearing O_DIRECT for libblkid");
  }
  auto found = probe_open_device(fd, name);
  if (::fcntl(fd, F_SETFL, flags) != 0) return make_error(errno, name + ": restoring O_DIRECT");
  // The probe's reads went through the page cache (261 pages on a zram), and while a device has
  // cached pages every O_DIRECT read of it looks them up first (filemap_write_and_wait_range:
  // 2.6 % of the io-wq worker's time in io_uring reads at depth 16 on zram, 0.1 % in fio's). On a
  // device with nothing on it they are the probe's own, so they go, as fio drops a device's cache
  // before every job (invalidate=1); failing leaves only the cost. A filesystem's are left alone.
  if (found && !*found) (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  return found;
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
  const auto number = parse_device_number(*numbers);
  if (!number) return content_error(path + ": " + quote_value(*numbers) + " is not MAJOR:MINOR");
  disk.major = major(*number);
  disk.minor = minor(*number);
  return disk;
}

}  // namespace kdrift
