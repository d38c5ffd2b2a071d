#include "iobench/device_users.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include "support/devices.h"

namespace kdrift {
namespace {

FileIdentity file(unsigned major, unsigned minor, ino_t inode) {
  FileIdentity identity;
  identity.device = makedev(major, minor);
  identity.inode = inode;
  return identity;
}

TEST(DeviceUsers, SwapsGivesUnescapedPathsWithoutTheHeader) {
  const auto paths = parse_swaps(
      "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
      "/dev/zram0                              partition\t4194300\t\t0\t\t100\n"
      "/var/swap\\040file                       file\t\t1048572\t\t0\t\t-2\n");
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "/dev/zram0");
  EXPECT_EQ(paths[1], "/var/swap file");
}

TEST(DeviceUsers, FileIsMatchedByDeviceAndInode) {
  DeviceUsers users;
  users.swaps.push_back({file(254, 1, 12), "/swapfile"});
  users.swaps.push_back({testing::block_identity(254, 1), "/dev/vda1"});
  TargetIdentity swapfile{{{file(254, 1, 12), "/srv/alias-of-swapfile"}}};
  TargetIdentity other{{{file(254, 1, 13), "/srv/other"}}};
  EXPECT_EQ(mounts_and_swaps(swapfile, users),
            std::vector<std::string>{"/srv/alias-of-swapfile is in use as swap"});
  // Same filesystem, another inode; and the device the filesystem is on is not the file.
  EXPECT_TRUE(mounts_and_swaps(other, users).empty());
}

TEST(DeviceUsers, FileBackingALoopDeviceNamesItAndItsMount) {
  DeviceUsers users;
  users.mounts.push_back({makedev(7, 3), "/mnt/victim", "ext4"});
  users.loops.push_back({"loop3", makedev(7, 3), file(254, 1, 4242)});
  users.loops.push_back({"loop5", makedev(7, 5), file(254, 1, 4242)});
  users.loops.push_back({"loop6", makedev(7, 6), file(254, 1, 7)});
  const auto reasons = loops_backed_by(TargetIdentity{{{file(254, 1, 4242), "/srv/x.img"}}}, users);
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0],
            "/srv/x.img backs loop3, mounted on /mnt/victim: writing it would change loop3's data "
            "under whoever uses it");
  EXPECT_EQ(reasons[1].rfind("/srv/x.img backs loop5: ", 0), 0u) << reasons[1];
  // A file is not mounted itself, even when its numbers collide with a device's.
  EXPECT_TRUE(mounts_and_swaps(TargetIdentity{{{file(7, 3, 1), "/f"}}}, users).empty());
}

TEST(DeviceUsers, DeviceBackingALoopDeviceThroughAPartition) {
  DeviceUsers users;
  FileIdentity backing = testing::block_identity(259, 1);
  users.loops.push_back({"loop9", makedev(7, 9), backing});
  // A loop over a file on the disk's filesystem is not backed by the disk.
  users.loops.push_back({"loop8", makedev(7, 8), file(259, 1, 2)});
  const TargetIdentity disk{
      {{testing::block_identity(8, 0), "sda"}, {testing::block_identity(259, 1), "sda1"}}};
  const auto reasons = loops_backed_by(disk, users);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(reasons[0].rfind("sda1 backs loop9: ", 0), 0u) << reasons[0];
}

}  // namespace
}  // namespace kdrift
