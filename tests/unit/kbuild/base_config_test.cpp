#include "kbuild/base_config.h"

#include <gtest/gtest.h>

#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

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
  dir.write("empty", "");
  for (const std::string name : {"text", "binary", "empty"}) {
    const auto config = read_base_config(dir.path() + "/" + name);
    ASSERT_FALSE(config) << name;
    EXPECT_NE(config.error().context.find(dir.path() + "/" + name), std::string::npos)
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
