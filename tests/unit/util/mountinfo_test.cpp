#include "util/mountinfo.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

namespace kdrift {
namespace {

TEST(Mountinfo, NumbersUnescapedMountPointsAndFilesystems) {
  const auto mounts = parse_mountinfo(
      "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
      "97 22 7:3 / /mnt/my\\040disk\\134x rw - ext4 /dev/loop3 rw\n"
      "98 22 259:12 /sub /srv/a\\011b rw master:2 shared:3 - xfs /dev/nvme0n1p2 rw\n"
      "torn line\n"
      "99 22 x:y / /bad rw - ext4 /dev/none rw\n"
      "100 22 0:5 / /no/separator rw\n");
  ASSERT_EQ(mounts.size(), 5u);
  EXPECT_EQ(mounts[0].device, makedev(254, 1));
  EXPECT_EQ(mounts[0].mount_point, "/");
  EXPECT_EQ(mounts[0].filesystem, "ext4");
  EXPECT_EQ(mounts[1].device, makedev(7, 3));
  EXPECT_EQ(mounts[1].mount_point, "/mnt/my disk\\x");
  EXPECT_EQ(mounts[2].device, makedev(259, 12));
  EXPECT_EQ(mounts[2].mount_point, "/srv/a\tb");
  EXPECT_EQ(mounts[2].filesystem, "xfs");
  // A line is kept with what it does say: a mount whose device is unreadable still covers the
  // files below its mount point, and one without a type is of no type kdrift trusts.
  EXPECT_FALSE(mounts[3].device);
  EXPECT_EQ(mounts[3].mount_point, "/bad");
  EXPECT_EQ(mounts[4].device, makedev(0, 5));
  EXPECT_EQ(mounts[4].filesystem, "");
}

TEST(Mountinfo, DeviceNumbers) {
  EXPECT_EQ(parse_device_number("259:3\n"), makedev(259, 3));
  EXPECT_FALSE(parse_device_number("259"));
  EXPECT_FALSE(parse_device_number("a:b"));
  EXPECT_FALSE(parse_device_number("1:2:3"));
}

}  // namespace
}  // namespace kdrift
