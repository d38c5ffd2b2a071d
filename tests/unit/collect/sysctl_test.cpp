#include "collect/sysctl.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(SysctlCollector, DottedNamesMapToProcSys) {
  EXPECT_EQ(sysctl_path("fs.aio-max-nr"), "/proc/sys/fs/aio-max-nr");
  EXPECT_EQ(sysctl_path("kernel.io_uring_disabled"), "/proc/sys/kernel/io_uring_disabled");
}

TEST(SysctlCollector, ReadsEveryValueAsAnInteger) {
  TempDir tree;
  tree.write("proc/sys/kernel/io_uring_disabled", "2\n");
  tree.write("proc/sys/kernel/io_uring_group", "-1\n");
  tree.write("proc/sys/fs/aio-max-nr", "1048576\n");
  tree.write("proc/sys/fs/aio-nr", "2048\n");
  tree.write("proc/sys/vm/dirty_ratio", "20\n");
  tree.write("proc/sys/vm/dirty_bytes", "0\n");
  const Json sysctl = collect_sysctl(SysRoot(tree.path()));
  EXPECT_EQ(sysctl["kernel.io_uring_disabled"], 2);
  EXPECT_EQ(sysctl["kernel.io_uring_group"], -1);
  EXPECT_EQ(sysctl["fs.aio-max-nr"], 1048576);
  EXPECT_EQ(sysctl["fs.aio-nr"], 2048);
  EXPECT_EQ(sysctl["vm.dirty_ratio"], 20);
  EXPECT_EQ(sysctl["vm.dirty_bytes"], 0);
}

TEST(SysctlCollector, OldKernelWithoutIoUringSysctlsSaysWhy) {
  TempDir tree;  // 5.15: io_uring_disabled and io_uring_group came in 6.6
  tree.write("proc/sys/fs/aio-max-nr", "65536\n");
  const Json sysctl = collect_sysctl(SysRoot(tree.path()));
  const std::string reason = sysctl["unavailable"]["kernel.io_uring_disabled"];
  EXPECT_NE(reason.find("/proc/sys/kernel/io_uring_disabled: No such file"), std::string::npos)
      << reason;
  EXPECT_FALSE(sysctl.contains("kernel.io_uring_disabled"));
  EXPECT_EQ(sysctl["fs.aio-max-nr"], 65536);
  EXPECT_EQ(sysctl["unavailable"].size(), 16u);  // every other one, each with its reason
}

TEST(SysctlCollector, GarbageAndEmptyValuesAreUnavailableWithTheText) {
  TempDir tree;
  tree.write("proc/sys/vm/swappiness", "sixty\n");
  tree.write("proc/sys/vm/dirty_ratio", "");
  const Json sysctl = collect_sysctl(SysRoot(tree.path()));
  EXPECT_NE(sysctl["unavailable"]["vm.swappiness"].get<std::string>().find("\"sixty\""),
            std::string::npos);
  EXPECT_NE(sysctl["unavailable"]["vm.dirty_ratio"].get<std::string>().find("expected an integer"),
            std::string::npos);
}

}  // namespace
}  // namespace kdrift
