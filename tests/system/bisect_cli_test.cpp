// kdrift bisect's command line: the manual (good/bad/skip) and `run` bisects through the real
// binary, their state directory, report, log and replay, and the errors a user can make.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift {
namespace {

using testing::TempDir;

class BisectCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("list.txt",
               "# oldest first\n"
               "v0 kernel=/boot/vmlinuz-0\n"
               "v1\nv2\nv3 append=\"iommu.strict=1 quiet\"\nv4\nv5\nv6\nv7\n");
  }
  testing::CommandRun bisect(const std::string& arguments) {
    return testing::run_kdrift("bisect --state-dir " + dir_.path() + "/state " + arguments);
  }
  testing::CommandRun start() {
    return bisect("start --good v0 --bad v7 --candidates " + dir_.path() + "/list.txt");
  }
  Json report() {
    const auto run = testing::run_kdrift(
        "bisect --state-dir " + dir_.path() + "/state report --format json", true);
    EXPECT_EQ(run.status, 0) << run.out;
    return Json::parse(run.out);
  }
  TempDir dir_;
};

TEST_F(BisectCli, ManualVerdictsNameTheFirstBad) {
  const auto started = start();
  ASSERT_EQ(started.status, 0) << started.out;
  EXPECT_NE(started.out.find("next: test v3 append \"iommu.strict=1 quiet\""), std::string::npos)
      << started.out;
  EXPECT_EQ(bisect("good").status, 0);     // v3
  EXPECT_EQ(bisect("bad").status, 0);      // v5
  EXPECT_EQ(bisect("good v4").status, 0);  // named explicitly
  const Json result = report();
  EXPECT_EQ(result["state"], "done");
  EXPECT_EQ(result["first_bad"], "v5");
  EXPECT_EQ(result["steps"].size(), 3u);
  // The state file outside scripts read holds the same document.
  std::ifstream state(dir_.path() + "/state/state.json");
  std::stringstream text;
  text << state.rdbuf();
  EXPECT_EQ(Json::parse(text.str())["first_bad"], "v5");
}

TEST_F(BisectCli, RunJudgesByExitStatusWithTheCandidateInItsEnvironment) {
  ASSERT_EQ(start().status, 0);
  const std::string seen = dir_.path() + "/seen";
  const auto run =
      bisect("run sh -c 'echo \"$KDRIFT_BISECT_CANDIDATE|$KDRIFT_BISECT_APPEND\" >> " + seen +
             "; case $KDRIFT_BISECT_CANDIDATE in v[0-4]) exit 0;; v5) exit 125;; "
             "*) exit 3;; esac'");
  ASSERT_EQ(run.status, 0) << run.out;
  const Json result = report();
  EXPECT_EQ(result["first_bad"], "v6");
  EXPECT_EQ(result["could_also_be"], Json::array({"v5"}));
  std::ifstream lines(seen);
  std::stringstream text;
  text << lines.rdbuf();
  EXPECT_NE(text.str().find("v3|iommu.strict=1 quiet"), std::string::npos) << text.str();
}

TEST_F(BisectCli, RunStopsWithoutAVerdictOnASignalOrAnUnrunnableCommand) {
  ASSERT_EQ(start().status, 0);
  const auto killed = bisect("run sh -c 'kill -9 $$'");
  EXPECT_EQ(killed.status, 2);
  EXPECT_NE(killed.out.find("exited 137 on v3: stopped"), std::string::npos) << killed.out;
  const auto missing = bisect("run /nonexistent/kdrift-test-command");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("cannot run /nonexistent/kdrift-test-command"), std::string::npos)
      << missing.out;
  const Json result = report();
  EXPECT_EQ(result["state"], "running");
  EXPECT_TRUE(result["steps"].empty()) << "nothing may be recorded";
}

TEST_F(BisectCli, LogReplaysToTheSameReportAndResetRemovesTheState) {
  ASSERT_EQ(start().status, 0);
  ASSERT_EQ(bisect("bad").status, 0);
  ASSERT_EQ(bisect("skip").status, 0);
  const auto log = testing::run_kdrift("bisect --state-dir " + dir_.path() + "/state log", true);
  ASSERT_EQ(log.status, 0);
  dir_.write("journal-copy.jsonl", log.out);
  const auto replayed = testing::run_kdrift("bisect replay " + dir_.path() + "/journal-copy.jsonl");
  const auto status = bisect("status");
  ASSERT_EQ(replayed.status, 0) << replayed.out;
  EXPECT_EQ(replayed.out.substr(replayed.out.find('\n')), status.out.substr(status.out.find('\n')));
  EXPECT_EQ(bisect("reset").status, 0);
  EXPECT_FALSE(std::ifstream(dir_.path() + "/state/journal.jsonl").good());
}

TEST_F(BisectCli, MistakesAreNamedAndExitTwo) {
  const auto none = bisect("status");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.out.find("no bisect is recorded here"), std::string::npos) << none.out;
  dir_.write("bad.txt", "a\nb kernal=/x\n");
  const auto bad_list = bisect("start --good a --bad b --candidates " + dir_.path() + "/bad.txt");
  EXPECT_EQ(bad_list.status, 2);
  EXPECT_NE(bad_list.out.find("bad.txt:2: unknown key \"kernal\""), std::string::npos)
      << bad_list.out;
  const auto backwards =
      bisect("start --good v7 --bad v0 --candidates " + dir_.path() + "/list.txt");
  EXPECT_EQ(backwards.status, 2);
  EXPECT_NE(backwards.out.find("--good must come before --bad"), std::string::npos);
  ASSERT_EQ(start().status, 0);
  const auto twice = start();
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.out.find("already recorded"), std::string::npos) << twice.out;
  const auto unknown = bisect("good v99");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.out.find("no candidate named \"v99\""), std::string::npos) << unknown.out;
  const auto no_source = bisect("start --good v0 --bad v7");
  EXPECT_EQ(no_source.status, 2);
}

}  // namespace
}  // namespace kdrift
