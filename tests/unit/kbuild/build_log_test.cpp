#include "kbuild/build_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

TEST(BuildLog, HoldsEachStepsCommandAndOutputInOrder) {
  const TempDir dir;
  dir.write("build.log", "an older build\n");
  auto log = BuildLog::create(dir.path() + "/build.log");
  ASSERT_TRUE(log) << log.error().describe();
  log->note("compiler: gcc");
  auto first = log->run({"sh", "-c", "echo out; echo err >&2; exit 3"}, {},
                        Clock::now() + std::chrono::seconds(20));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->exit_status, 3);
  EXPECT_EQ(read_bytes(dir.path() + "/build.log"),
            "==> compiler: gcc\n==> sh -c 'echo out; echo err >&2; exit 3'\nout\nerr\n");
  struct stat status {};
  ASSERT_EQ(::stat((dir.path() + "/build.log").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);
}

TEST(BuildLog, ADeadlineBoundsAStep) {
  const TempDir dir;
  auto log = BuildLog::create(dir.path() + "/build.log");
  ASSERT_TRUE(log);
  const auto slow = log->run({"sleep", "30"}, {}, Clock::now() + std::chrono::milliseconds(200));
  ASSERT_TRUE(slow);
  EXPECT_TRUE(slow->timed_out);
  const auto late = log->run({"true"}, {}, Clock::now() - std::chrono::seconds(1));
  ASSERT_TRUE(late);
  EXPECT_TRUE(late->timed_out);
}

TEST(BuildLog, ItsTailIsTheLastWholeLines) {
  const TempDir dir;
  auto log = BuildLog::create(dir.path() + "/build.log");
  ASSERT_TRUE(log);
  ASSERT_TRUE(log->run({"sh", "-c", "i=0; while [ $i -lt 500 ]; do echo line $i; i=$((i+1)); done"},
                       {}, Clock::now() + std::chrono::seconds(20)));
  EXPECT_EQ(log->tail(3), "line 497\nline 498\nline 499");
  // Within 20 bytes only two whole lines fit.
  EXPECT_EQ(log->tail(10, 20), "line 498\nline 499");
  EXPECT_EQ(log->tail(0), "");
}

TEST(BuildLog, RefusesAnythingButARegularFile) {
  const TempDir dir;
  dir.write("target", "precious\n");
  dir.symlink("link", "target");
  EXPECT_FALSE(BuildLog::create(dir.path() + "/link"));
  EXPECT_EQ(read_bytes(dir.path() + "/target"), "precious\n");
  ASSERT_EQ(::mkfifo((dir.path() + "/fifo").c_str(), 0600), 0);
  EXPECT_FALSE(BuildLog::create(dir.path() + "/fifo"));
  EXPECT_FALSE(BuildLog::create(dir.path() + "/missing/build.log"));
  EXPECT_FALSE(BuildLog::create(""));
}

}  // namespace
}  // namespace kdrift
