#pragma once
// The block device under a probe target, and whether writing to it could lose data.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "iobench/device_users.h"
#include "trace/block_trace.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct BlockDeviceRef {
  unsigned major = 0;
  unsigned minor = 0;
  std::string name;   // "vda1"
  std::string disk;   // "vda": the whole device, whose queue/ and mq/ hold the settings
  std::string sysfs;  // resolved "/sys/devices/.../block/vda/vda1"
  bool partition = false;
};

// /sys/dev/block/<major>:<minor>. An error for anonymous devices (btrfs subvolumes, overlayfs,
// tmpfs: major 0), which have no block device of their own.
Result<BlockDeviceRef> find_block_device(const SysRoot& root, dev_t device);

// The device and, for a whole disk, each of its partitions: what the checks compare by number.
TargetIdentity device_and_partitions(const SysRoot& root, const BlockDeviceRef& device);

// Every reason writing to the whole device would destroy data or disturb a user of it; empty
// when it is safe. signature names the filesystem, partition table or swap signature libblkid
// finds on the device (nullopt: none), or fails when it cannot tell.
std::vector<std::string> write_refusals(const SysRoot& root, const TargetIdentity& device,
                                        const Result<std::optional<std::string>>& signature,
                                        const DeviceUsers& users);

// libblkid's safe probe of superblocks (filesystems, swap, RAID members) and partition tables,
// read through the open descriptor fd (name is for messages). O_DIRECT is off for the probe's
// unaligned reads and restored after; on a device where it finds nothing, the page cache those
// reads filled is dropped again, so that the O_DIRECT I/O after it pays no lookups.
Result<std::optional<std::string>> probe_signature(int fd, const std::string& name);

// The whole disk under the device, as the block trace filters on it (a partition is traced
// with its disk), and whether it is blk-mq (has requests) or bio-based.
Result<TracedDisk> traced_disk(const SysRoot& root, const BlockDeviceRef& device);

// NUMA node of the device's controller, nullopt when it has none (virtual devices, one node).
std::optional<int> device_numa_node(const SysRoot& root, const BlockDeviceRef& device);

}  // namespace kdrift
