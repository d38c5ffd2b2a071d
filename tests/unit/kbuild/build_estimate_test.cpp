#include "kbuild/build_estimate.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// A config of builtin =y and modules =m symbols, plus lines that are not symbols set.
std::string config_text(int builtin, int modules, bool debug_info = false) {
  std::string text = "# Linux/x86 6.1 Kernel Configuration\nCONFIG_LOG_BUF_SHIFT=17\n";
  for (int i = 0; i < builtin; ++i)
    text += "CONFIG_Y" + std::to_string(i) + "=y\n";
  for (int i = 0; i < modules; ++i)
    text += "CONFIG_M" + std::to_string(i) + "=m\n# CONFIG_N" + std::to_string(i) + " is not set\n";
  if (debug_info) text += "CONFIG_DEBUG_INFO=y\n";
  return text;
}

TEST(BuildEstimate, TheLabGuestConfigOnTwoCoresIsTheCalibration) {
  const TempDir dir;
  dir.write("config", config_text(500, 100));
  const auto estimate = estimate_builds(30, dir.path() + "/config", 2, dir.path() + "/out");
  ASSERT_TRUE(estimate) << estimate.error().describe();
  EXPECT_EQ(estimate->candidates, 30);
  EXPECT_EQ(estimate->builds_expected, 6);  // ceil(log2(31)) = 5, plus the bad endpoint
  EXPECT_EQ(estimate->config_symbols, 600);
  EXPECT_EQ(estimate->first_build, std::chrono::seconds(207));
  // 64 MiB fixed + 600 x 256 KiB + 6 x 20 MiB kept.
  EXPECT_EQ(estimate->disk_needed_bytes, (64 + 150 + 120) * kMiB);
  // out does not exist: its parent's filesystem is measured.
  EXPECT_EQ(estimate->disk_directory, dir.path());
  EXPECT_GT(estimate->disk_free_bytes, 0u);
}

TEST(BuildEstimate, TimeScalesWithSymbolsAndInverselyWithCores) {
  const TempDir dir;
  dir.write("big", config_text(2000, 400, true));
  const auto big = estimate_builds(1, dir.path() + "/big", 4, dir.path());
  ASSERT_TRUE(big) << big.error().describe();
  EXPECT_EQ(big->builds_expected, 2);
  // CONFIG_DEBUG_INFO=y is a symbol too: 207 x 2401/600 x 2/4 = 414.2, rounded up.
  EXPECT_EQ(big->first_build, std::chrono::seconds(415));
  // Debug info: 3 MiB a symbol.
  EXPECT_EQ(big->disk_needed_bytes, (64 + 2401 * 3 + 2 * 20) * kMiB);

  dir.write("small", config_text(150, 0));
  const auto small = estimate_builds(1000, dir.path() + "/small", 1, dir.path());
  ASSERT_TRUE(small);
  EXPECT_EQ(small->builds_expected, 11);                     // ceil(log2(1001)) = 10
  EXPECT_EQ(small->first_build, std::chrono::seconds(104));  // 207 x 150/600 x 2 = 103.5, up
}

TEST(BuildEstimate, RefusesNonsense) {
  const TempDir dir;
  dir.write("config", config_text(10, 0));
  dir.write("not-config", "hello\n");
  EXPECT_FALSE(estimate_builds(0, dir.path() + "/config", 2, dir.path()));
  EXPECT_FALSE(estimate_builds(10, dir.path() + "/config", 0, dir.path()));
  const auto not_config = estimate_builds(10, dir.path() + "/not-config", 2, dir.path());
  ASSERT_FALSE(not_config);
  EXPECT_NE(not_config.error().context.find("not-config is not a kernel config"),
            std::string::npos);
}

TEST(BuildEstimate, ADiskTooSmallIsRefusedWithItsFigures) {
  BuildEstimate estimate;
  estimate.builds_expected = 6;
  estimate.config_symbols = 600;
  estimate.disk_needed_bytes = 676 * kMiB;
  estimate.disk_free_bytes = 100 * kMiB;
  estimate.disk_directory = "/var/lib/kdrift";
  const auto refused = check_disk(estimate);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ENOSPC);
  EXPECT_EQ(refused.error().context,
            "/var/lib/kdrift has 100 MiB free; 6 builds of a 600-symbol config need 676 MiB");
  estimate.disk_free_bytes = 676 * kMiB;
  EXPECT_TRUE(check_disk(estimate));
}

TEST(FreeDiskBytes, MeasuresTheNearestExistingDirectory) {
  const TempDir dir;
  std::string measured;
  const auto free_bytes = free_disk_bytes(dir.path() + "/a/b/c", &measured);
  ASSERT_TRUE(free_bytes) << free_bytes.error().describe();
  EXPECT_EQ(measured, dir.path());
  EXPECT_FALSE(free_disk_bytes(""));
}

}  // namespace
}  // namespace kdrift
