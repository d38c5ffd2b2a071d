#pragma once
// /proc/<pid>/mountinfo, read by one parser for the two questions kdrift asks of it: which
// files the kernel makes (util/kernel_mounts.h) and which block devices hold a mounted
// filesystem (iobench/device_users.h).

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift {

// "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue"
struct MountEntry {
  std::optional<dev_t> device;  // the third field; none when it is not MAJOR:MINOR
  std::string mount_point;      // the fifth, octal escapes undone
  std::string filesystem;       // the first after " - "; empty on a line without one
};

// Every line with at least the five fields up to the mount point, in the table's order.
std::vector<MountEntry> parse_mountinfo(std::string_view text);

// "MAJOR:MINOR" as mountinfo and sysfs's dev files write device numbers.
std::optional<dev_t> parse_device_number(std::string_view text);

}  // namespace kdrift
