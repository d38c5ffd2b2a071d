// The kdrift binary as scripts use it: exit statuses and files, per the contract in README.md.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

struct KdriftRun {
  int status;
  std::string out;
};

KdriftRun kdrift(const std::string& arguments) {
  const std::string command = testing::kdrift_binary() + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, {}};
  std::string out;
  char buffer[4096];
  size_t got = 0;
  while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    out.append(buffer, got);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
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

TEST(Cli, AuditPrintsASummary) {
  const KdriftRun run = kdrift("audit");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("Kernel"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
