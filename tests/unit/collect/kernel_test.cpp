#include "collect/kernel.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

TEST(KernelCollector, EmptyTreeDegradesWithReasons) {
  testing::TempDir tree;
  const Json kernel = collect_kernel(SysRoot(tree.path()));
  for (const char* key : {"release", "version", "boot_id", "cmdline"}) {
    EXPECT_FALSE(kernel.contains(key)) << key;
    EXPECT_TRUE(kernel["unavailable"].contains(key)) << key;
  }
  EXPECT_TRUE(kernel["config"].contains("unavailable"));
}

TEST(KernelCollector, GarbageTaintedIsUnavailableNotZero) {
  testing::TempDir tree;
  tree.write("proc/sys/kernel/tainted", "\xff\xfe garbage");
  const Json kernel = collect_kernel(SysRoot(tree.path()));
  EXPECT_FALSE(kernel.contains("tainted"));
  EXPECT_NE(kernel["unavailable"]["tainted"].get<std::string>().find("expected an integer"),
            std::string::npos);
}

}  // namespace
}  // namespace kdrift
