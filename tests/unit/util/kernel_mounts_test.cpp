#include "util/kernel_mounts.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/child_process.h"
#include "support/fixtures.h"
#include "util/sysroot.h"

namespace kdrift {
namespace {

// A host's table as the kernel writes it, with what makes the reader's choice hard: debugfs and
// tracefs inside sysfs, binfmt_misc inside procfs, a file bound over a procfs file, two mounts
// stacked on one place, a mount point with a space in it and optional fields before the " - ".
constexpr std::string_view kMountinfo =
    "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "23 22 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw\n"
    "24 22 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:3 - proc proc rw\n"
    "25 23 0:7 / /sys/kernel/debug rw,relatime shared:4 - debugfs debugfs rw\n"
    "26 23 0:12 / /sys/kernel/tracing rw,relatime shared:5 - tracefs tracefs rw\n"
    "27 24 0:40 / /proc/sys/fs/binfmt_misc rw,relatime shared:6 - binfmt_misc binfmt_misc rw\n"
    "28 24 0:5 /null /proc/kcore rw,nosuid shared:7 master:2 - devtmpfs udev rw,size=4k\n"
    "29 22 0:21 / /srv/sys rw,relatime - sysfs sysfs rw\n"
    "30 29 0:33 / /srv/sys rw,relatime - tmpfs tmpfs rw\n"
    "31 22 0:22 / /mnt/a\\040b rw,relatime - proc proc rw\n"
    "garbage line\n"
    "32 22 0:50 / /broken rw,relatime no separator here\n"
    "33 23 0:51 / /sys/fs/torn rw,relatime no separator either\n";

TEST(KernelMounts, SysfsAndProcfsFilesAreKnownByTheLongestMountPointAboveThem) {
  const auto mounts = KernelMounts::parse(kMountinfo);
  EXPECT_EQ(mounts.filesystem_of("/sys/block/vda/queue/scheduler"), PseudoFs::kSysfs);
  EXPECT_EQ(mounts.filesystem_of("/sys"), PseudoFs::kSysfs);
  EXPECT_EQ(mounts.filesystem_of("/proc/self/mountinfo"), PseudoFs::kProcfs);
  EXPECT_EQ(mounts.filesystem_of("/mnt/a b/cpuinfo"), PseudoFs::kProcfs);
  // What is mounted inside them is its own filesystem, and keeps every check.
  EXPECT_EQ(mounts.filesystem_of("/sys/kernel/debug/block/vda/state"), PseudoFs::kOther);
  EXPECT_EQ(mounts.filesystem_of("/sys/kernel/tracing/trace_pipe"), PseudoFs::kOther);
  EXPECT_EQ(mounts.filesystem_of("/proc/sys/fs/binfmt_misc/status"), PseudoFs::kOther);
  EXPECT_EQ(mounts.filesystem_of("/proc/kcore"), PseudoFs::kOther);
  EXPECT_EQ(mounts.filesystem_of("/proc/kcorex"), PseudoFs::kProcfs);
  EXPECT_EQ(mounts.filesystem_of("/boot/config-6.1.0"), PseudoFs::kOther);
  EXPECT_EQ(mounts.filesystem_of("/"), PseudoFs::kOther);
}

TEST(KernelMounts, StackedMountsOrAnythingUnreadableCountAsAnotherFilesystem) {
  const auto mounts = KernelMounts::parse(kMountinfo);
  EXPECT_EQ(mounts.filesystem_of("/srv/sys/block/vda/size"), PseudoFs::kOther);
  EXPECT_EQ(mounts.filesystem_of("/broken/x"), PseudoFs::kOther);
  EXPECT_EQ(mounts.filesystem_of("/sys/fs/torn/x"), PseudoFs::kOther);  // a mount of no known type
  EXPECT_EQ(mounts.filesystem_of("sys/block"), PseudoFs::kOther);       // not absolute
  EXPECT_EQ(mounts.filesystem_of(""), PseudoFs::kOther);
  const auto none = KernelMounts::parse("");
  EXPECT_EQ(none.filesystem_of("/sys/block/vda/size"), PseudoFs::kOther);
}

TEST(KernelMounts, TheLiveTableKnowsThisHostsSysfsAndProcfs) {
  if (::access("/sys/kernel", F_OK) != 0 || ::access("/proc/self", F_OK) != 0) {
    GTEST_SKIP() << "sysfs or procfs is not mounted here";
  }
  const auto mounts = KernelMounts::read_live();
  EXPECT_EQ(mounts.filesystem_of("/sys/kernel/mm"), PseudoFs::kSysfs);
  EXPECT_EQ(mounts.filesystem_of("/proc/self/status"), PseudoFs::kProcfs);
  // Opened as a file, a directory there is still not one.
  const SysRoot live("/");
  const auto directory = live.read("/sys/kernel");
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().code, EINVAL);
}

// The live reader spares the kind check only for sysfs and procfs files: a FIFO bound over one
// (in a mount namespace of the child's own) is refused at once, neither read nor waited on.
TEST(KernelMounts, AFifoMountedOverAProcfsFileIsRefusedByTheLiveReader) {
  const testing::TempDir dir;
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const char* target = "/proc/sys/kernel/hostname";
  const int status = testing::exit_status_in_child([&] {
    if (::unshare(CLONE_NEWNS) != 0) return 77;
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 77;
    if (::mount(fifo.c_str(), target, nullptr, MS_BIND, nullptr) != 0) return 77;
    const SysRoot live("/");
    const auto read = live.read(target);
    if (read) return 10;
    if (read.error().code != EINVAL) return 11;
    return read.error().describe().find("not a regular file") == std::string::npos ? 12 : 0;
  });
  if (status == 77) GTEST_SKIP() << "no mount namespace for this user";
  EXPECT_EQ(status, 0);
}

// A sysfs binary attribute is read a page at a time: a first read of a whole page is not its end.
TEST(KernelMounts, ASysfsFileLongerThanAPageIsReadWhole) {
  const char* path = "/sys/kernel/btf/vmlinux";
  struct stat st {};
  if (::stat(path, &st) != 0 || st.st_size <= 4096) GTEST_SKIP() << "no kernel BTF in sysfs";
  const SysRoot live("/");
  const auto read = live.read(path, SysRoot::kDefaultMaxBytes * 4);
  ASSERT_TRUE(read.ok()) << read.error().describe();
  EXPECT_EQ(read->size(), static_cast<size_t>(st.st_size));
}

}  // namespace
}  // namespace kdrift
