#include "util/kernel_mounts.h"

#include "util/input_file.h"
#include "util/mountinfo.h"

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

KernelMounts KernelMounts::parse(std::string_view mountinfo) {
  KernelMounts mounts;
  for (auto& mount : parse_mountinfo(mountinfo)) {
    const PseudoFs type = pseudo_fs_named(mount.filesystem);
    const auto [place, inserted] = mounts.mount_points_.emplace(std::move(mount.mount_point), type);
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
