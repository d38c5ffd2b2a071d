// Live capture against this machine's own interfaces.

#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "collect/capture.h"
#include "support/system.h"
#include "util/text.h"

namespace kdrift {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(LiveCapture, KernelMatchesUnameAndProcCmdline) {
  const Json snapshot = capture_snapshot(SysRoot("/"));
  utsname names{};
  ASSERT_EQ(uname(&names), 0);
  EXPECT_EQ(snapshot["kernel"]["release"], names.release);
  EXPECT_EQ(snapshot["kernel"]["cmdline"]["raw"], std::string(trim(slurp("/proc/cmdline"))));
  EXPECT_EQ(snapshot["schema"], "kdrift.snapshot/1");
}

TEST(LiveCapture, ConfigIoUringMatchesProcConfig) {
  if (access("/proc/config.gz", R_OK) != 0) GTEST_SKIP() << "no /proc/config.gz on this kernel";
  const Json snapshot = capture_snapshot(SysRoot("/"));
  ASSERT_EQ(snapshot["kernel"]["config"]["source"], "/proc/config.gz");
  const auto line =
      testing::run_command("zcat /proc/config.gz | grep -E '^(# )?CONFIG_IO_URING[= ]'", true);
  ASSERT_EQ(line.status, 0);
  const std::string expected = line.out.find("=y") != std::string::npos ? "y" : "n";
  EXPECT_EQ(snapshot["kernel"]["config"]["symbols"]["CONFIG_IO_URING"], expected);
}

}  // namespace
}  // namespace kdrift
