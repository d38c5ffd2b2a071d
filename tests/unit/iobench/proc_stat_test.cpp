#include "iobench/proc_stat.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// A task stat line as proc_pid_stat() prints it: utime 1200, stime 34.
constexpr std::string_view kSqpollStat =
    "4242 (iou-sqp-4240) S 1 4240 4240 0 -1 4194368 0 0 0 0 1200 34 0 0 20 0 3 0 500 0 0\n";

TEST(ProcStat, CpuTicksCountFromTheLastParenthesis) {
  EXPECT_EQ(stat_cpu_ticks(kSqpollStat), 1234u);
  // A command name may hold ") " itself: the fields start after the last ')'.
  EXPECT_EQ(stat_cpu_ticks("7 (a) b) R 1 7 7 0 -1 0 0 0 0 0 5 6 0 0\n"), 11u);
  EXPECT_EQ(stat_cpu_ticks("7 (short) R 1 7 7\n"), std::nullopt);
  EXPECT_EQ(stat_cpu_ticks("no parenthesis 1 2 3 4 5 6 7 8 9 10 11 12 13"), std::nullopt);
  EXPECT_EQ(stat_cpu_ticks("7 (x) R 1 7 7 0 -1 0 0 0 0 0 many 6 0 0\n"), std::nullopt);
}

TEST(ProcStat, TheSqpollThreadIsFoundByItsName) {
  TempDir tree;
  tree.write("proc/self/task/4240/comm", "kdrift\n");
  tree.write("proc/self/task/4240/stat", "4240 (kdrift) R 1 4240 4240 0 -1 0 0 0 0 0 9 9 0 0\n");
  tree.write("proc/self/task/4242/comm", "iou-sqp-4240\n");
  tree.write("proc/self/task/4242/stat", kSqpollStat);
  const SysRoot root(tree.path());
  EXPECT_EQ(sqpoll_thread_dir(root), "/proc/self/task/4242");
  const auto seconds = sqpoll_thread_seconds(root);
  ASSERT_TRUE(seconds.has_value());
  EXPECT_DOUBLE_EQ(*seconds, 1234.0 / static_cast<double>(::sysconf(_SC_CLK_TCK)));
}

TEST(ProcStat, NoSqpollThreadOrAnUnreadableStat) {
  TempDir tree;
  tree.write("proc/self/task/4240/comm", "kdrift\n");
  EXPECT_EQ(sqpoll_thread_dir(SysRoot(tree.path())), std::nullopt);
  EXPECT_EQ(sqpoll_thread_seconds(SysRoot(tree.path())), std::nullopt);
  wait_for_sqpoll_exit(SysRoot(tree.path()));  // returns at once: nothing to wait for
  tree.write("proc/self/task/4242/comm", "iou-sqp-4240\n");
  EXPECT_EQ(sqpoll_thread_seconds(SysRoot(tree.path())), std::nullopt);
  tree.write("proc/self/task/4242/stat", "garbage");
  EXPECT_EQ(sqpoll_thread_seconds(SysRoot(tree.path())), std::nullopt);
  EXPECT_EQ(sqpoll_thread_dir(SysRoot("/nonexistent-root")), std::nullopt);
}

// A virtio-blk disk vda with a config and a request vector, and a loop device with none.
void write_virtio_host(const TempDir& tree) {
  tree.write("proc/interrupts",
             "           CPU0       CPU1       \n"
             " 26:          0          8  IO-APIC   4-edge      ttyS0\n"
             " 35:          0          1 PCI-MSIX-0000:00:02.0   0-edge      virtio1-config\n"
             " 36:        100      94109 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
             " 39:       2997          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
             "LOC:     114671     118804   Local timer interrupts\n");
  tree.write("sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda/dev", "254:0\n");
  tree.symlink("sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda/device", "../../../virtio1");
  tree.symlink("sys/block/vda", "../devices/pci0000:00/0000:00:02.0/virtio1/block/vda");
  tree.write("sys/devices/virtual/block/loop0/dev", "7:0\n");
  tree.symlink("sys/block/loop0", "../devices/virtual/block/loop0");
}

TEST(ProcStat, DeviceInterruptsSumTheControllersLines) {
  TempDir tree;
  write_virtio_host(tree);
  const SysRoot root(tree.path());
  const auto vda = device_interrupts(root, "vda");
  ASSERT_TRUE(vda.has_value());
  EXPECT_EQ(vda->count, 1u + 100u + 94109u);
  EXPECT_EQ(vda->lines, Json({"virtio1-config", "virtio1-req.0"}));
  EXPECT_EQ(device_interrupts(root, "loop0"), std::nullopt);
  EXPECT_EQ(device_interrupts(SysRoot("/nonexistent-root"), "vda"), std::nullopt);
}

}  // namespace
}  // namespace kdrift
