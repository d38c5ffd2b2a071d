#include "kbuild/base_config.h"

#include <gtest/gtest.h>

#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(KernelConfigLine, KnowsAssignmentsAndUnsetSymbols) {
  EXPECT_TRUE(is_kernel_config_line("CONFIG_NVME_CORE=y"));
  EXPECT_TRUE(is_kernel_config_line("CONFIG_LOCALVERSION=\"\""));
  EXPECT_TRUE(is_kernel_config_line("# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set"));
  EXPECT_FALSE(is_kernel_config_line("CONFIG_=y"));
  EXPECT_FALSE(is_kernel_config_line("CONFIG_X y"));
  EXPECT_FALSE(is_kernel_config_line("# CONFIG_X is set"));
  EXPECT_FALSE(is_kernel_config_line("# Automatically generated file; DO NOT EDIT."));
  EXPECT_FALSE(is_kernel_config_line("XCONFIG_A=y"));
}

TEST(BaseConfig, CountsBuiltInAndModularSymbols) {
  const TempDir dir;
  dir.write(
      "config",
      "#\n# Automatically generated file; DO NOT EDIT.\n#\nCONFIG_64BIT=y\nCONFIG_NVME_CORE=m\n"
      "CONFIG_BLK_DEV_NVME=m\n# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n"
      "CONFIG_LOG_BUF_SHIFT=17\nCONFIG_DEBUG_INFO=y\n");
  const auto config = read_base_config(dir.path() + "/config");
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_EQ(config->builtin, 2);
  EXPECT_EQ(config->modules, 2);
  EXPECT_TRUE(config->debug_info);
  EXPECT_EQ(config->path, dir.path() + "/config");
  EXPECT_NE(config->text.find("CONFIG_LOG_BUF_SHIFT=17"), std::string::npos);
}

TEST(BaseConfig, RefusesWhatIsNotAKernelConfig) {
  const TempDir dir;
  dir.write("text", "hello\nworld\n");
  dir.write("binary", std::string("CONFIG_A=y\n\0\x7f"
                                  "ELF",
                                  15));
  // The sign of a config must come within the first 64 KiB.
  dir.write("late", std::string(70000, '#') + "\nCONFIG_A=y\n");
  dir.write("empty", "");
  for (const std::string name : {"text", "binary", "late", "empty"}) {
    const auto config = read_base_config(dir.path() + "/" + name);
    ASSERT_FALSE(config) << name;
    EXPECT_NE(config.error().context.find(dir.path() + "/" + name + " is not a kernel config"),
              std::string::npos)
        << config.error().context;
  }
  dir.mkdir("directory");
  EXPECT_FALSE(read_base_config(dir.path() + "/directory"));
  const auto missing = read_base_config(dir.path() + "/missing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
}

}  // namespace
}  // namespace kdrift
