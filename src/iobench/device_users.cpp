#include "iobench/device_users.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>

#include <optional>

#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

constexpr unsigned kLoopMajor = 7;

bool same_file(const FileIdentity& a, const FileIdentity& b) {
  if (a.block || b.block) return a.block && b.block && a.rdev == b.rdev;
  return a.device == b.device && a.inode == b.inode;
}

void read_swaps(const SysRoot& root, DeviceUsers& users) {
  auto text = root.read("/proc/swaps");
  if (!text) {
    // No /proc/swaps: a kernel built without swap, which nothing can be in use as.
    if (text.error().code != ENOENT) {
      users.unknown.push_back("cannot read the swap areas: " + text.error().describe());
    }
    return;
  }
  for (auto& path : parse_swaps(*text)) {
    // The kernel's name of the swap area, in this process's mount namespace.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      users.unknown.push_back("cannot identify the swap area " + quote_value(path) + ": " +
                              make_error(errno, "stat").describe());
      continue;
    }
    users.swaps.push_back({FileIdentity::of(st), std::move(path)});
  }
}

// LOOP_GET_STATUS64 on /dev/NAME, checked by fstat to be the loop device sysfs names. nullopt,
// with nothing added to unknown, when the device was detached meanwhile.
std::optional<LoopBinding> read_loop(const SysRoot& root, const std::string& name,
                                     std::vector<std::string>& unknown) {
  const std::string why = "cannot tell what backs " + name + ": ";
  const auto number = root.read_value("/sys/block/" + name + "/dev");
  const dev_t device = number ? parse_device_number(*number).value_or(0) : 0;
  if (major(device) != kLoopMajor) {
    unknown.push_back(why + "no loop device number in sysfs");
    return std::nullopt;
  }
  const std::string node = "/dev/" + name;
  UniqueFd fd(::open(node.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    unknown.push_back(why + make_error(errno, node).describe());
    return std::nullopt;
  }
  if (!S_ISBLK(st.st_mode) || st.st_rdev != device) {
    unknown.push_back(why + node + " is not the device sysfs names");
    return std::nullopt;
  }
  loop_info64 info{};
  if (::ioctl(fd.get(), LOOP_GET_STATUS64, &info) != 0) {
    if (errno != ENXIO) unknown.push_back(why + make_error(errno, "LOOP_GET_STATUS64").describe());
    return std::nullopt;
  }
  // The kernel encodes these as stat does (huge_encode_dev), so they compare with st_dev.
  FileIdentity backing;
  backing.block = info.lo_rdevice != 0;
  backing.rdev = static_cast<dev_t>(info.lo_rdevice);
  backing.device = static_cast<dev_t>(info.lo_device);
  backing.inode = static_cast<ino_t>(info.lo_inode);
  return LoopBinding{name, device, backing};
}

void read_loops(const SysRoot& root, DeviceUsers& users) {
  auto names = root.list("/sys/block");
  if (!names) {
    users.unknown.push_back("cannot list the loop devices: " + names.error().describe());
    return;
  }
  for (const auto& name : *names) {
    // sysfs has loop/ only while the device is bound to a file.
    if (!starts_with(name, "loop") || !root.exists("/sys/block/" + name + "/loop")) continue;
    if (auto loop = read_loop(root, name, users.unknown)) users.loops.push_back(std::move(*loop));
  }
}

}  // namespace

FileIdentity FileIdentity::of(const struct stat& st) {
  FileIdentity identity;
  identity.block = S_ISBLK(st.st_mode);
  identity.rdev = identity.block ? st.st_rdev : 0;
  identity.device = st.st_dev;
  identity.inode = st.st_ino;
  return identity;
}

std::vector<std::string> parse_swaps(std::string_view text) {
  std::vector<std::string> paths;
  for (const auto& line : split_lines(text)) {
    const auto fields = split_whitespace(line);
    // The header line ("Filename Type ...") and anything else that is not a path.
    if (fields.empty() || !starts_with(fields[0], "/")) continue;
    paths.push_back(unescape_octal(fields[0]));
  }
  return paths;
}

DeviceUsers read_device_users(const SysRoot& root) {
  DeviceUsers users;
  if (auto text = root.read("/proc/self/mountinfo")) {
    users.mounts = parse_mountinfo(*text);
  } else {
    users.unknown.push_back("cannot read the mount table: " + text.error().describe());
  }
  read_swaps(root, users);
  read_loops(root, users);
  return users;
}

std::vector<std::string> mounts_and_swaps(const TargetIdentity& target, const DeviceUsers& users) {
  std::vector<std::string> reasons;
  for (const auto& [member, name] : target.members) {
    for (const auto& mount : users.mounts) {
      if (member.block && mount.device == member.rdev) {
        reasons.push_back(name + " is mounted on " + mount.mount_point);
      }
    }
    for (const auto& swap : users.swaps) {
      if (same_file(member, swap.identity)) reasons.push_back(name + " is in use as swap");
    }
  }
  return reasons;
}

std::vector<std::string> loops_backed_by(const TargetIdentity& target, const DeviceUsers& users) {
  std::vector<std::string> reasons;
  for (const auto& [member, name] : target.members) {
    for (const auto& loop : users.loops) {
      if (!same_file(member, loop.backing)) continue;
      std::string reason = name + " backs " + loop.name;
      for (const auto& mount : users.mounts) {
        if (mount.device == loop.device) reason += ", mounted on " + mount.mount_point;
      }
      reasons.push_back(reason + ": writing it would change " + loop.name +
                        "'s data under whoever uses it");
    }
  }
  return reasons;
}

}  // namespace kdrift
