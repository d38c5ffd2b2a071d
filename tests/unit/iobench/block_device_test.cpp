#include "iobench/block_device.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include "iobench/failure_cause.h"
#include "support/devices.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// /sys/dev/block links and a disk with one partition, as the kernel lays them out.
void add_disk(const TempDir& tree, const std::string& name, const std::string& number) {
  const std::string disk = "sys/devices/virtual/block/" + name;
  tree.write(disk + "/dev", number + "\n");
  tree.mkdir(disk + "/holders");
  tree.symlink("sys/dev/block/" + number, "../../devices/virtual/block/" + name);
}

void add_partition(const TempDir& tree, const std::string& disk, const std::string& name,
                   const std::string& number) {
  const std::string dir = "sys/devices/virtual/block/" + disk + "/" + name;
  tree.write(dir + "/dev", number + "\n");
  tree.write(dir + "/partition", "1\n");
  tree.mkdir(dir + "/holders");
  tree.symlink("sys/dev/block/" + number, "../../devices/virtual/block/" + disk + "/" + name);
}

const Result<std::optional<std::string>> kNoSignature = std::optional<std::string>();

TEST(BlockDevice, FindsDiskAndPartition) {
  TempDir tree;
  add_disk(tree, "loop3", "7:3");
  add_partition(tree, "loop3", "loop3p1", "259:0");
  SysRoot root(tree.path());
  auto disk = find_block_device(root, makedev(7, 3));
  ASSERT_TRUE(disk.ok()) << disk.error().describe();
  EXPECT_EQ(disk->name, "loop3");
  EXPECT_FALSE(disk->partition);
  auto partition = find_block_device(root, makedev(259, 0));
  ASSERT_TRUE(partition.ok());
  EXPECT_EQ(partition->disk, "loop3");
  EXPECT_TRUE(partition->partition);
  auto anonymous = find_block_device(root, makedev(0, 42));
  ASSERT_FALSE(anonymous.ok());
  EXPECT_NE(anonymous.error().describe().find("anonymous"), std::string::npos);
}

// The uses read from the tree's /proc files, as read_device_users parses them (swap areas and
// loop devices need the live kernel to identify and are given by the tests themselves).
DeviceUsers users_in(const SysRoot& root) {
  DeviceUsers users;
  if (auto mounts = root.read("/proc/self/mountinfo")) {
    users.mounts = parse_mountinfo(*mounts);
  } else {
    users.unknown.push_back("cannot read the mount table: " + mounts.error().describe());
  }
  return users;
}

std::string joined(const std::vector<std::string>& reasons) {
  std::string all;
  for (const auto& reason : reasons)
    all += reason + "\n";
  return all;
}

TEST(BlockDevice, UnusedDeviceMayBeWritten) {
  TempDir tree;
  add_disk(tree, "zram5", "252:5");
  tree.write("proc/self/mountinfo", "22 1 254:1 / / rw - ext4 /dev/vda1 rw\n");
  SysRoot root(tree.path());
  auto device = find_block_device(root, makedev(252, 5));
  ASSERT_TRUE(device.ok());
  const auto identity = device_and_partitions(root, *device);
  ASSERT_EQ(identity.members.size(), 1u);
  EXPECT_EQ(identity.members[0].first.rdev, makedev(252, 5));
  EXPECT_TRUE(write_refusals(root, identity, kNoSignature, users_in(root)).empty());
}

TEST(BlockDevice, EveryKindOfUseIsARefusal) {
  TempDir tree;
  add_disk(tree, "loop3", "7:3");
  add_partition(tree, "loop3", "loop3p1", "259:0");
  add_partition(tree, "loop3", "loop3p2", "259:1");
  tree.write("proc/self/mountinfo", "22 1 259:0 / /mnt/data rw - ext4 /dev/loop3p1 rw\n");
  tree.mkdir("sys/devices/virtual/block/loop3/holders/dm-0");
  SysRoot root(tree.path());
  auto device = find_block_device(root, makedev(7, 3));
  ASSERT_TRUE(device.ok());
  auto users = users_in(root);
  // Matched by number: the swap area's name in /proc/swaps is not what decides.
  users.swaps.push_back({testing::block_identity(259, 1), "/dev/disk/by-partlabel/swap"});
  const auto identity = device_and_partitions(root, *device);
  const auto all = joined(
      write_refusals(root, identity, std::optional<std::string>("a dos partition table"), users));
  EXPECT_NE(all.find("libblkid finds a dos partition table"), std::string::npos) << all;
  EXPECT_NE(all.find("loop3p1 is mounted on /mnt/data"), std::string::npos) << all;
  EXPECT_NE(all.find("loop3p2 is in use as swap"), std::string::npos) << all;
  EXPECT_NE(all.find("loop3 is held by dm-0"), std::string::npos) << all;
}

TEST(BlockDevice, UnknownStateIsARefusalToo) {
  TempDir tree;
  add_disk(tree, "loop4", "7:4");
  SysRoot root(tree.path());  // no mountinfo: cannot tell whether it is mounted
  auto device = find_block_device(root, makedev(7, 4));
  ASSERT_TRUE(device.ok());
  const auto reasons = write_refusals(root, device_and_partitions(root, *device),
                                      make_error(EIO, "libblkid probe"), users_in(root));
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[0].find("cannot tell whether it holds data"), std::string::npos);
  EXPECT_NE(reasons[1].find("mount table"), std::string::npos);
}

TEST(FailureCause, NamesTheSettingToChange) {
  FailureContext context;
  const auto uring = *EngineMode::parse("io_uring");
  context.io_uring_disabled = 2;
  EXPECT_NE(explain_failure(EPERM, uring, context).find("kernel.io_uring_disabled = 2"),
            std::string::npos);
  context.io_uring_disabled = 0;
  context.seccomp_mode = 2;
  EXPECT_NE(explain_failure(EPERM, uring, context).find("seccomp"), std::string::npos);

  const auto iopoll = *EngineMode::parse("io_uring+iopoll");
  context.disk = "zram1";
  context.bio_based = true;
  EXPECT_NE(explain_failure(EOPNOTSUPP, iopoll, context).find("zram1 is bio-based"),
            std::string::npos);
  context.disk = "nvme0n1";
  context.bio_based = false;
  context.io_poll = 0;
  context.nvme_poll_queues = 0;
  const auto cause = explain_failure(EOPNOTSUPP, iopoll, context);
  EXPECT_NE(cause.find("nvme.poll_queues = 0"), std::string::npos) << cause;
  EXPECT_TRUE(polling_doubt(iopoll, context).has_value());
  context.io_poll = 1;
  context.nvme_poll_queues = 2;
  EXPECT_FALSE(polling_doubt(iopoll, context).has_value());
  EXPECT_FALSE(polling_doubt(uring, context).has_value());

  context.memlock_limit = 65536;
  EXPECT_NE(explain_failure(ENOMEM, *EngineMode::parse("io_uring+fixedbufs"), context)
                .find("RLIMIT_MEMLOCK (65536 bytes)"),
            std::string::npos);
  context.aio_usage = "fs.aio-nr 65536 of fs.aio-max-nr 65536";
  EXPECT_NE(explain_failure(EAGAIN, *EngineMode::parse("libaio"), context).find("fs.aio-max-nr"),
            std::string::npos);
}

TEST(FailureCause, ReadsContextThroughTheSysroot) {
  TempDir tree;
  add_disk(tree, "nvme0n1", "259:0");
  tree.symlink("sys/block/nvme0n1", "../devices/virtual/block/nvme0n1");
  tree.write("sys/devices/virtual/block/nvme0n1/queue/io_poll", "0\n");
  tree.mkdir("sys/devices/virtual/block/nvme0n1/mq/0");
  tree.write("sys/module/nvme/parameters/poll_queues", "0\n");
  tree.write("proc/sys/kernel/io_uring_disabled", "1\n");
  tree.write("proc/sys/kernel/io_uring_group", "-1\n");
  tree.write("proc/self/status", "Name:\tkdrift\nSeccomp:\t0\n");
  SysRoot root(tree.path());
  auto device = find_block_device(root, makedev(259, 0));
  ASSERT_TRUE(device.ok());
  const auto context = FailureContext::read(root, *device);
  EXPECT_EQ(context.io_uring_disabled, 1);
  EXPECT_EQ(context.io_poll, 0);
  EXPECT_EQ(context.nvme_poll_queues, 0);
  EXPECT_EQ(context.seccomp_mode, 0);
  EXPECT_FALSE(context.bio_based);
  EXPECT_EQ(context.disk, "nvme0n1");
}

}  // namespace
}  // namespace kdrift
