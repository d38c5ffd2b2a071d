#include "bisect/journal.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

void append_raw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::app | std::ios::binary) << bytes;
}

// The temporary directory as a bisect directory opens it.
TrustedDir trusted(const TempDir& dir) {
  auto opened = TrustedDir::open(dir.path());
  if (!opened) throw std::runtime_error(opened.error().describe());
  return std::move(*opened);
}

TEST(Journal, EventsComeBackInOrder) {
  TempDir dir;
  const std::string path = dir.path() + "/journal.jsonl";
  {
    auto journal = Journal::open(trusted(dir), "journal.jsonl");
    ASSERT_TRUE(journal) << journal.error().describe();
    EXPECT_FALSE(journal->dropped_torn_tail());
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(journal->append({{"event", "sample"}, {"n", i}}));
  }
  auto reopened = Journal::open(trusted(dir), "journal.jsonl");
  ASSERT_TRUE(reopened);
  ASSERT_TRUE(reopened->append({{"event", "done"}}));
  const auto contents = read_journal(path);
  ASSERT_TRUE(contents) << contents.error().describe();
  ASSERT_EQ(contents->events.size(), 4u);
  EXPECT_EQ(contents->events[2]["n"], 2);
  EXPECT_EQ(contents->events[3]["event"], "done");
  EXPECT_FALSE(contents->torn_tail);
}

TEST(Journal, AnAppendTornByACrashIsDroppedAndTheNextOneIsWhole) {
  TempDir dir;
  const std::string path = dir.path() + "/journal.jsonl";
  {
    auto journal = Journal::open(trusted(dir), "journal.jsonl");
    ASSERT_TRUE(journal);
    ASSERT_TRUE(journal->append({{"event", "boot"}, {"candidate", "a"}}));
  }
  // What a power cut in the middle of write(2) leaves: part of a line, no newline.
  append_raw(path, "{\"event\":\"sample\",\"val");
  auto torn = read_journal(trusted(dir), "journal.jsonl");
  ASSERT_TRUE(torn) << torn.error().describe();
  EXPECT_TRUE(torn->torn_tail);
  ASSERT_EQ(torn->events.size(), 1u);

  auto journal = Journal::open(trusted(dir), "journal.jsonl");
  ASSERT_TRUE(journal) << journal.error().describe();
  EXPECT_TRUE(journal->dropped_torn_tail());
  ASSERT_TRUE(journal->append({{"event", "sample"}, {"value", 7}}));
  const auto contents = read_journal(path);
  ASSERT_TRUE(contents) << contents.error().describe();
  EXPECT_FALSE(contents->torn_tail);
  ASSERT_EQ(contents->events.size(), 2u);
  EXPECT_EQ(contents->events[1]["value"], 7);
}

TEST(Journal, ADamagedLineInTheMiddleIsAnErrorNamingIt) {
  TempDir dir;
  const std::string path = dir.path() + "/journal.jsonl";
  append_raw(path, "{\"event\":\"a\"}\nnot json at all\n{\"event\":\"b\"}\n");
  const auto contents = read_journal(path);
  ASSERT_FALSE(contents);
  EXPECT_NE(contents.error().describe().find("journal.jsonl:2: not a journal event"),
            std::string::npos)
      << contents.error().describe();
}

TEST(Journal, MissingFileAndUnwritableDirectoryAreErrorsNamingThePath) {
  const auto missing = read_journal("/nonexistent/kdrift/journal.jsonl");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().describe().find("/nonexistent/kdrift/journal.jsonl"),
            std::string::npos);
  TempDir dir;
  const auto absent = read_journal(trusted(dir), "journal.jsonl");
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().code, ENOENT);
  EXPECT_NE(absent.error().describe().find(dir.path() + "/journal.jsonl"), std::string::npos);
}

// Nothing planted in the directory is written through: a symlink named like the journal is
// refused, and the file it points to stays as it was.
TEST(Journal, ASymlinkInPlaceOfTheJournalIsRefused) {
  TempDir dir;
  dir.write("elsewhere", "keep\n");
  dir.symlink("journal.jsonl", dir.path() + "/elsewhere");
  const auto opened = Journal::open(trusted(dir), "journal.jsonl");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ELOOP);
  EXPECT_FALSE(read_journal(trusted(dir), "journal.jsonl"));
  EXPECT_EQ(testing::read_bytes(dir.path() + "/elsewhere"), "keep\n");
}

}  // namespace
}  // namespace kdrift
