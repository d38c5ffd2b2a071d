#pragma once
// Who else uses a probe target: mounts, swap and loop devices, each matched on the numbers fstat
// gives for the open target (st_rdev of a device and its partitions, st_dev and st_ino of a file),
// never on a name that could point somewhere else by the time it is compared.

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/mountinfo.h"
#include "util/sysroot.h"

namespace kdrift {

// A file as the kernel identifies it: a block device by its number, anything else by its inode.
struct FileIdentity {
  bool block = false;
  dev_t rdev = 0;    // block: st_rdev
  dev_t device = 0;  // otherwise: st_dev and st_ino
  ino_t inode = 0;

  static FileIdentity of(const struct stat& st);
};

// What is checked: the open file, or a block device with its partitions, each named.
struct TargetIdentity {
  std::vector<std::pair<FileIdentity, std::string>> members;
};

struct SwapEntry {
  FileIdentity identity;
  std::string path;
};

// A bound loop device and what LOOP_GET_STATUS64 says backs it.
struct LoopBinding {
  std::string name;  // "loop3"
  dev_t device = 0;  // the loop device's own number, to find its mounts
  FileIdentity backing;
};

// Everything that may hold a target, read once from the kernel. What could not be read is in
// unknown: each entry is a refusal, since a use that cannot be seen cannot be ruled out.
struct DeviceUsers {
  std::vector<MountEntry> mounts;
  std::vector<SwapEntry> swaps;
  std::vector<LoopBinding> loops;
  std::vector<std::string> unknown;
};

// /proc/swaps: the file name of every active swap area (octal escapes undone).
std::vector<std::string> parse_swaps(std::string_view text);

// The mount table and swaps through root; swap areas and every bound loop device's backing file
// identified through the live kernel (stat, LOOP_GET_STATUS64).
DeviceUsers read_device_users(const SysRoot& root);

// "loop3p1 is mounted on /mnt/data", "loop3p2 is in use as swap": a use that writing disturbs.
std::vector<std::string> mounts_and_swaps(const TargetIdentity& target, const DeviceUsers& users);
// "loop3p1 backs loop7, mounted on /mnt": writing the target rewrites that loop device's data
// under whoever uses it, so these refuse --allow-write outright, as the kernel's EBUSY does for
// a claimed device.
std::vector<std::string> loops_backed_by(const TargetIdentity& target, const DeviceUsers& users);

}  // namespace kdrift
