#include "bisect/bisect_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

BisectStart manual_start() {
  BisectStart start;
  start.id = "t1";
  for (int i = 0; i < 6; ++i)
    start.candidates.push_back({"v" + std::to_string(i), "", "", "", "", "", ""});
  start.good = 0;
  start.bad = 5;
  start.metric = DeclaredMetric{};
  start.mode = "manual";
  start.config.declared = true;
  return start;
}

Json read_state(const std::string& dir) {
  std::ifstream in(dir + "/state.json");
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

TEST(BisectDir, RecordsSurviveReopeningAndStateFollowsThem) {
  TempDir root;
  const std::string path = root.path() + "/bisect";
  {
    auto dir = BisectDir::create(path, manual_start());
    ASSERT_TRUE(dir) << dir.error().describe();
    const Json state = read_state(path);
    EXPECT_EQ(state["state"], "running");
    EXPECT_EQ(state["next"]["candidate"], "v2");
    ASSERT_TRUE(dir->record(verdict_event("v2", "good", "user")));
  }
  auto dir = BisectDir::open(path);
  ASSERT_TRUE(dir) << dir.error().describe();
  ASSERT_TRUE(dir->record(verdict_event("v3", "bad", "user")));
  const Json state = read_state(path);
  EXPECT_EQ(state["state"], "done");
  EXPECT_EQ(state["first_bad"], "v3");
  ASSERT_EQ(state["steps"].size(), 2u);
  EXPECT_EQ(state["steps"][0]["candidate"], "v2");
  EXPECT_EQ(state["steps"][0]["verdict"], "good");
  const auto session = dir->session();
  ASSERT_TRUE(session);
  EXPECT_EQ(*session->search.first_bad(), 3u);
}

TEST(BisectDir, AnEventTheBisectCannotTakeIsRefusedAndNotWritten) {
  TempDir root;
  const std::string path = root.path() + "/bisect";
  auto dir = BisectDir::create(path, manual_start());
  ASSERT_TRUE(dir);
  const auto refused = dir->record(verdict_event("v9", "good", "user"));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().describe().find("no candidate named \"v9\""), std::string::npos);
  const auto session = dir->session();
  ASSERT_TRUE(session) << session.error().describe();
  EXPECT_EQ(session->search.next().candidate, 2u);
}

TEST(BisectDir, OneBisectPerDirectoryAndOneCommandAtATime) {
  TempDir root;
  const std::string path = root.path() + "/bisect";
  auto first = BisectDir::create(path, manual_start());
  ASSERT_TRUE(first);
  const auto busy = BisectDir::open(path);
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().code, EBUSY);
  first = BisectDir::open(root.path() + "/elsewhere");  // releases the first lock
  ASSERT_FALSE(first);
  EXPECT_NE(first.error().describe().find("no bisect is recorded here"), std::string::npos);
  const auto again = BisectDir::create(path, manual_start());
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().describe().find("already recorded"), std::string::npos);
}

// Whoever can write the journal chooses the kernels `bisect step` kexecs as root.
TEST(BisectDir, ADirectoryOthersCanWriteOrOwnIsRefused) {
  TempDir root;
  const std::string path = root.path() + "/bisect";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0777), 0);
  auto shared = BisectDir::create(path, manual_start());
  ASSERT_FALSE(shared);
  EXPECT_EQ(shared.error().code, EPERM);
  EXPECT_NE(shared.error().describe().find("writable by its group or others"), std::string::npos);
  EXPECT_FALSE(std::ifstream(path + "/journal.jsonl").good());
  ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  if (::geteuid() == 0) {  // only root can give a directory away
    ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
    auto theirs = BisectDir::create(path, manual_start());
    ASSERT_FALSE(theirs);
    EXPECT_NE(theirs.error().describe().find("owned by uid 65534"), std::string::npos);
    ASSERT_EQ(::chown(path.c_str(), 0, 0), 0);
  }
  EXPECT_TRUE(BisectDir::create(path, manual_start()));
}

TEST(BisectDir, ATornAppendIsDroppedAndResetRemovesEverything) {
  TempDir root;
  const std::string path = root.path() + "/bisect";
  {
    auto dir = BisectDir::create(path, manual_start());
    ASSERT_TRUE(dir);
    ASSERT_TRUE(dir->record(verdict_event("v2", "good", "user")));
  }
  std::ofstream(path + "/journal.jsonl", std::ios::app) << "{\"event\":\"verdict\",\"cand";
  auto dir = BisectDir::open(path);
  ASSERT_TRUE(dir);
  const auto session = dir->session();
  ASSERT_TRUE(session) << session.error().describe();
  EXPECT_EQ(session->search.next().candidate, 3u);
  ASSERT_TRUE(dir->record(verdict_event("v3", "bad", "user")));
  EXPECT_EQ(read_state(path)["first_bad"], "v3");
  ASSERT_TRUE(dir->remove());
  EXPECT_FALSE(std::ifstream(path + "/journal.jsonl").good());
  EXPECT_FALSE(std::ifstream(path).good());
}

}  // namespace
}  // namespace kdrift
