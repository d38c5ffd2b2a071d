// The kdrift binary as scripts use it: exit statuses and files, per the contract in README.md.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift {
namespace {

using KdriftRun = testing::CommandRun;

KdriftRun kdrift(const std::string& arguments) {
  return testing::run_kdrift(arguments);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(kdrift("").status, 2);
  EXPECT_EQ(kdrift("no-such-command").status, 2);
  EXPECT_EQ(kdrift("capture --no-such-flag").status, 2);
  const KdriftRun missing_root = kdrift("capture --root /nonexistent/dir");
  EXPECT_EQ(missing_root.status, 2);
  EXPECT_NE(missing_root.out.find("/nonexistent/dir"), std::string::npos);
}

TEST(Cli, CaptureWritesAValidSnapshotFile) {
  testing::TempDir dir;
  const KdriftRun run = kdrift("capture -o " + dir.path() + "/s.json");
  ASSERT_EQ(run.status, 0) << run.out;
  std::ifstream in(dir.path() + "/s.json");
  std::stringstream text;
  text << in.rdbuf();
  auto snapshot = parse_snapshot(text.str(), "s.json");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().describe();
  EXPECT_TRUE(snapshot->contains("kernel"));
}

TEST(Cli, OutputToADeviceWritesInPlace) {
  ASSERT_EQ(kdrift("capture -o /dev/null").status, 0);
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null must stay a character device";
}

TEST(Cli, DumpThenCaptureFromArchive) {
  testing::TempDir dir;
  ASSERT_EQ(kdrift("dump-sysroot -o " + dir.path() + "/d.tar.gz").status, 0);
  const KdriftRun run =
      kdrift("capture --root " + dir.path() + "/d.tar.gz -o " + dir.path() + "/s.json");
  EXPECT_EQ(run.status, 0) << run.out;
}

TEST(Cli, GarbageArchiveIsAnInputError) {
  testing::TempDir dir;
  dir.write("bad.tar.gz", "this is not an archive");
  const KdriftRun run = kdrift("capture --root " + dir.path() + "/bad.tar.gz");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.out.find("bad.tar.gz"), std::string::npos) << run.out;
}

TEST(Cli, AuditPrintsASummaryAndProbesTheCurrentDirectory) {
  testing::TempDir dir;
  const KdriftRun run =
      testing::run_command("cd " + dir.path() + " && " + testing::kdrift_binary() + " audit");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("Kernel"), std::string::npos);
  EXPECT_NE(run.out.find("What this boot can do"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("io_uring randread 4k qd32"), std::string::npos) << run.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the probe file must not outlive audit";
}

}  // namespace
}  // namespace kdrift
