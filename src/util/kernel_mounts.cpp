#include "util/kernel_mounts.h"

#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

// A host with thousands of container mounts has a mount table of a few MiB.
constexpr size_t kMaxMountinfoBytes = size_t{16} << 20;

PseudoFs pseudo_fs_named(std::string_view type) {
  if (type == "sysfs") return PseudoFs::kSysfs;
  if (type == "proc") return PseudoFs::kProcfs;
  return PseudoFs::kOther;
}

}  // namespace

KernelMounts KernelMounts::read_live() {
  const auto text = read_whole_file("/proc/self/mountinfo", kMaxMountinfoBytes);
  if (!text) return {};
  return parse(*text);
}

// "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue":
// the mount point is the fifth field, the filesystem type the first after " - ".
KernelMounts KernelMounts::parse(std::string_view mountinfo) {
  KernelMounts mounts;
  for (const auto& line : split_lines(mountinfo)) {
    const auto fields = split_whitespace(line);
    if (fields.size() < 5) continue;
    size_t separator = 5;
    while (separator < fields.size() && fields[separator] != "-")
      ++separator;
    if (separator + 1 >= fields.size()) continue;
    const PseudoFs type = pseudo_fs_named(fields[separator + 1]);
    const auto [place, inserted] = mounts.mount_points_.emplace(unescape_octal(fields[4]), type);
    if (!inserted && place->second != type) place->second = PseudoFs::kOther;
  }
  return mounts;
}

PseudoFs KernelMounts::filesystem_of(std::string_view path) const {
  if (path.empty() || path.front() != '/') return PseudoFs::kOther;
  std::string prefix(path);
  for (;;) {
    if (const auto it = mount_points_.find(prefix); it != mount_points_.end()) return it->second;
    if (prefix == "/") return PseudoFs::kOther;
    const auto slash = prefix.rfind('/');
    prefix.resize(slash == 0 ? 1 : slash);
  }
}

}  // namespace kdrift
