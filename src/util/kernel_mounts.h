#pragma once
// Which of the live host's files sysfs or procfs make, by the mount table. There every name is
// a directory, a symbolic link or a regular file the kernel writes as it is read (never a FIFO
// or a device), so the live reader spares the fstat that checks a file's
// kind elsewhere, and a sysfs attribute's first read, when it is shorter than a page, is all of
// it (the kernel formats an attribute whole, at most a page, on the first read). Anything
// mounted over a file or a directory there (debugfs on /sys/kernel/debug, /dev/null bound over
// /proc/kcore) is that filesystem, so its files keep every check. Only root can change the mount
// table, so a mount made after it was read is root's own doing.

#include <string>
#include <string_view>
#include <unordered_map>

namespace kdrift {

enum class PseudoFs { kOther, kSysfs, kProcfs };

class KernelMounts {
 public:
  // The live mount table (/proc/self/mountinfo, at most 16 MiB); one that cannot be read knows
  // no mount, and every file then keeps its checks.
  static KernelMounts read_live();
  // From mountinfo's text. A mount point listed twice (mounts stacked on one place) counts as
  // sysfs or procfs only when every mount there is the same one of them.
  static KernelMounts parse(std::string_view mountinfo);

  // The filesystem of the mount an absolute, normalized path is on (the longest mount point
  // that is the path or above it), when it is sysfs or procfs.
  PseudoFs filesystem_of(std::string_view path) const;

 private:
  std::unordered_map<std::string, PseudoFs> mount_points_;
};

}  // namespace kdrift
