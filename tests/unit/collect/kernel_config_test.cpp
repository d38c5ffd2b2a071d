#include "collect/kernel_config.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

TEST(KernelConfig, ParsesEveryValueShape) {
  const auto parsed = parse_kernel_config(
      "#\n# Automatically generated file; DO NOT EDIT.\n"
      "CONFIG_INTEL_IOMMU=y\n"
      "# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n"
      "CONFIG_BLK_DEV_NVME=m\n"
      "CONFIG_NR_CPUS=8192\n"
      "CONFIG_PHYSICAL_START=0x1000000\n"
      "CONFIG_LOCALVERSION=\"-amd64 \\\"x\\\"\"\n"
      "garbage line\n");
  EXPECT_EQ(parsed.symbols["CONFIG_INTEL_IOMMU"], "y");
  EXPECT_EQ(parsed.symbols["CONFIG_INTEL_IOMMU_DEFAULT_ON"], "n");
  EXPECT_EQ(parsed.symbols["CONFIG_BLK_DEV_NVME"], "m");
  EXPECT_EQ(parsed.symbols["CONFIG_NR_CPUS"], 8192);
  EXPECT_EQ(parsed.symbols["CONFIG_PHYSICAL_START"], "0x1000000");
  EXPECT_EQ(parsed.symbols["CONFIG_LOCALVERSION"], "-amd64 \"x\"");
  EXPECT_EQ(parsed.malformed_lines, 1u);
}

TEST(KernelConfig, FallsBackToBootConfigAndSaysWhy) {
  testing::TempDir tree;
  tree.write("proc/config.gz", "\x1f\x8b truncated");
  tree.write("boot/config-6.1.0-50-amd64", "CONFIG_IO_URING=y\n");
  const Json config = collect_kernel_config(SysRoot(tree.path()), "6.1.0-50-amd64");
  EXPECT_EQ(config["source"], "/boot/config-6.1.0-50-amd64");
  EXPECT_EQ(config["symbols"]["CONFIG_IO_URING"], "y");
  ASSERT_TRUE(config["unavailable"].contains("/proc/config.gz"));
  EXPECT_NE(config["unavailable"]["/proc/config.gz"].get<std::string>().find("gzip"),
            std::string::npos);
}

TEST(KernelConfig, NeitherSourceIsRecordedAsUnavailable) {
  testing::TempDir tree;
  tree.write("boot/config-x", "this is not a kernel config\n");
  const Json config = collect_kernel_config(SysRoot(tree.path()), "x");
  EXPECT_FALSE(config.contains("symbols"));
  EXPECT_TRUE(config["unavailable"].contains("/proc/config.gz"));
  EXPECT_TRUE(config["unavailable"].contains("/boot/config-x"));
  // Every CONFIG_ is then unknown, not "not set": the symbols themselves are named.
  EXPECT_TRUE(config["unavailable"].contains("symbols"));
  const Json none = collect_kernel_config(SysRoot(testing::TempDir().path()), "x");
  EXPECT_EQ(none["unavailable"]["symbols"], "no kernel config was readable");
}

}  // namespace
}  // namespace kdrift
