#include "history/boot_history.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "support/fixtures.h"
#include "util/gzip.h"

namespace kdrift {
namespace {

using testing::TempDir;

Json boot_snapshot(const std::string& boot_id, const std::string& release,
                   const std::string& captured_at) {
  Json snapshot = new_snapshot();
  snapshot["capture"]["captured_at"] = captured_at;
  snapshot["kernel"] = {{"boot_id", boot_id}, {"release", release}};
  return snapshot;
}

std::vector<std::string> file_names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string packed(const Json& snapshot) {
  auto compressed = gzip(to_text(snapshot), "test");
  EXPECT_TRUE(compressed.ok());
  return compressed.ok() ? *compressed : std::string();
}

TEST(BootHistory, RecordsGzippedSnapshotsNamedByTimeAndBootIdListedOldestFirst) {
  const TempDir tmp;
  const std::string dir = tmp.path() + "/var/lib/kdrift/boots";  // created on first record
  // Recorded out of order: the listing follows capture time, not recording order.
  ASSERT_TRUE(record_boot(dir, boot_snapshot("bbbbbbbb-2222", "6.12.1", "2025-02-01T10:00:00Z")));
  ASSERT_TRUE(record_boot(dir, boot_snapshot("aaaaaaaa-1111", "6.1.0", "2025-01-31T08:09:10Z")));
  EXPECT_EQ(file_names(dir), (std::vector<std::string>{"20250131T080910Z-aaaaaaaa.json.gz",
                                                       "20250201T100000Z-bbbbbbbb.json.gz"}));
  const std::string bytes = testing::read_bytes(dir + "/20250131T080910Z-aaaaaaaa.json.gz");
  ASSERT_EQ(bytes.substr(0, 2), "\x1f\x8b");
  auto stored = read_snapshot_text(bytes, "stored");
  ASSERT_TRUE(stored) << stored.error().describe();
  EXPECT_EQ(*stored, boot_snapshot("aaaaaaaa-1111", "6.1.0", "2025-01-31T08:09:10Z"));

  auto boots = list_boots(dir);
  ASSERT_TRUE(boots) << boots.error().describe();
  ASSERT_EQ(boots->size(), 2u);
  EXPECT_EQ((*boots)[0].boot_id, "aaaaaaaa-1111");
  EXPECT_EQ((*boots)[0].release, "6.1.0");
  EXPECT_EQ((*boots)[0].captured_at, "2025-01-31T08:09:10Z");
  EXPECT_EQ((*boots)[0].path, dir + "/20250131T080910Z-aaaaaaaa.json.gz");
  EXPECT_EQ((*boots)[1].release, "6.12.1");
  EXPECT_TRUE((*boots)[1].error.empty());
}

TEST(BootHistory, TheSameBootIsStoredOnceAndTheFirstRecordReturned) {
  const TempDir tmp;
  auto first =
      record_boot(tmp.path(), boot_snapshot("cccccccc-3", "6.1.0", "2025-01-01T00:00:00Z"));
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->stored);
  // The unit ran again later in the same boot: another capture time, same boot id.
  auto again =
      record_boot(tmp.path(), boot_snapshot("cccccccc-3", "6.1.0", "2025-01-01T00:05:00Z"));
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->stored);
  EXPECT_EQ(again->boot.path, first->boot.path);
  EXPECT_EQ(again->boot.captured_at, "2025-01-01T00:00:00Z");
  EXPECT_EQ(file_names(tmp.path()).size(), 1u);
  // Ids that share the 8 characters of the file name are still different boots.
  auto other =
      record_boot(tmp.path(), boot_snapshot("cccccccc-4", "6.1.0", "2025-01-01T00:06:00Z"));
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->stored);
  EXPECT_EQ(file_names(tmp.path()).size(), 2u);
}

TEST(BootHistory, UnreadableFilesAreListedWithTheirErrorAndTheListingGoesOn) {
  const TempDir tmp;
  ASSERT_TRUE(
      record_boot(tmp.path(), boot_snapshot("aaaaaaaa-1", "6.1.0", "2025-01-01T00:00:00Z")));
  const std::string whole = packed(boot_snapshot("bbbbbbbb-2", "6.1.0", "2025-01-02T00:00:00Z"));
  tmp.write("20250102T000000Z-bbbbbbbb.json.gz", whole.substr(0, whole.size() / 2));
  tmp.write("20250103T000000Z-cccccccc.json.gz", "not gzip, not json");
  tmp.write("20250104T000000Z-dddddddd.json.gz", packed(Json{{"schema", "other/1"}}));
  Json no_id = boot_snapshot("x", "6.1.0", "2025-01-05T00:00:00Z");
  no_id["kernel"].erase("boot_id");
  tmp.write("20250105T000000Z-eeeeeeee.json.gz", packed(no_id));
  ASSERT_TRUE(
      record_boot(tmp.path(), boot_snapshot("ffffffff-6", "6.12.1", "2025-01-06T00:00:00Z")));
  // Neither a leftover of an interrupted write nor an unrelated file is a boot.
  tmp.write("20250107T000000Z-gggggggg.json.gz.tmp.Ab12Cd", "partial");
  tmp.write("README", "notes");

  auto boots = list_boots(tmp.path());
  ASSERT_TRUE(boots) << boots.error().describe();
  ASSERT_EQ(boots->size(), 6u);
  EXPECT_TRUE((*boots)[0].error.empty());
  EXPECT_NE((*boots)[1].error.find("truncated"), std::string::npos) << (*boots)[1].error;
  EXPECT_NE((*boots)[1].error.find("20250102T000000Z-bbbbbbbb.json.gz"), std::string::npos);
  EXPECT_NE((*boots)[2].error.find("not valid JSON"), std::string::npos) << (*boots)[2].error;
  EXPECT_NE((*boots)[3].error.find("schema"), std::string::npos) << (*boots)[3].error;
  EXPECT_NE((*boots)[4].error.find("boot_id"), std::string::npos) << (*boots)[4].error;
  EXPECT_EQ((*boots)[5].release, "6.12.1");
  EXPECT_TRUE((*boots)[5].error.empty());
  // The boot before the last is the newest readable one.
  const auto previous = previous_boot(*boots, "ffffffff-6");
  ASSERT_TRUE(previous);
  EXPECT_EQ(previous->boot_id, "aaaaaaaa-1");
}

TEST(BootHistory, KeepsTheNewestBootsAndNeverPrunesTheOneJustRecorded) {
  const TempDir tmp;
  for (int day = 1; day <= 5; ++day) {
    const std::string id = std::string(8, static_cast<char>('0' + day)) + "-a";
    ASSERT_TRUE(record_boot(
        tmp.path(), boot_snapshot(id, "6.1.0", "2025-01-0" + std::to_string(day) + "T00:00:00Z"),
        3));
  }
  EXPECT_EQ(file_names(tmp.path()),
            (std::vector<std::string>{"20250103T000000Z-33333333.json.gz",
                                      "20250104T000000Z-44444444.json.gz",
                                      "20250105T000000Z-55555555.json.gz"}));
  // A boot whose clock was wrong sorts first; the oldest other one goes instead.
  auto early =
      record_boot(tmp.path(), boot_snapshot("99999999-a", "6.1.0", "1970-01-01T00:00:09Z"), 3);
  ASSERT_TRUE(early);
  EXPECT_EQ(file_names(tmp.path()),
            (std::vector<std::string>{"19700101T000009Z-99999999.json.gz",
                                      "20250104T000000Z-44444444.json.gz",
                                      "20250105T000000Z-55555555.json.gz"}));
  // ...and the boot before it is still the newest other boot, not whatever sorts before it.
  auto boots = list_boots(tmp.path());
  ASSERT_TRUE(boots);
  const auto previous = previous_boot(*boots, "99999999-a");
  ASSERT_TRUE(previous);
  EXPECT_EQ(previous->boot_id, "55555555-a");
  EXPECT_FALSE(
      record_boot(tmp.path(), boot_snapshot("aaaaaaaa-b", "6.1.0", "2025-01-09T00:00:00Z"), 0));
}

TEST(BootHistory, ASnapshotWithoutAUsableBootIdIsRefused) {
  const TempDir tmp;
  Json none = boot_snapshot("", "6.1.0", "2025-01-01T00:00:00Z");
  auto refused = record_boot(tmp.path(), none);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().describe().find("kernel.boot_id"), std::string::npos);
  // The id becomes part of a file name: nothing that could leave the directory.
  EXPECT_FALSE(
      record_boot(tmp.path(), boot_snapshot("../../etc/x", "6.1.0", "2025-01-01T00:00:00Z")));
  EXPECT_TRUE(file_names(tmp.path()).empty());
}

TEST(BootHistory, AMissingDirectoryIsAnEmptyHistoryAndAFileInItsPlaceAnError) {
  const TempDir tmp;
  auto none = list_boots(tmp.path() + "/absent");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(previous_boot(*none, "anything"));
  tmp.write("plain-file", "x");
  EXPECT_FALSE(list_boots(tmp.path() + "/plain-file"));
}

// Root records and prunes the history on every boot: a directory another user can write, or
// owns, would let them choose what the kernel-change check compares and which files go.
TEST(BootHistory, ADirectoryAnotherUserCouldChangeIsRefused) {
  const TempDir tmp;
  const std::string dir = tmp.path() + "/boots";
  ASSERT_TRUE(record_boot(dir, boot_snapshot("aaaaaaaa-1", "6.1.0", "2025-01-01T00:00:00Z")));
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  for (const auto& refused :
       {list_boots(dir).error(),
        record_boot(dir, boot_snapshot("bbbbbbbb-2", "6.1.0", "2025-01-02T00:00:00Z")).error()}) {
    EXPECT_EQ(refused.code, EPERM);
    EXPECT_NE(refused.describe().find("mode 0777"), std::string::npos) << refused.describe();
  }
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  EXPECT_EQ(file_names(dir).size(), 1u);
  if (::geteuid() == 0) {  // only root can give a directory away
    ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
    const auto theirs = list_boots(dir);
    ASSERT_FALSE(theirs);
    EXPECT_NE(theirs.error().describe().find("owned by uid 65534"), std::string::npos);
  }
}

TEST(BootHistory, AnUnshapedCaptureTimeStillGivesASortableName) {
  const TempDir tmp;
  auto recorded = record_boot(tmp.path(), boot_snapshot("abcdef01-2", "6.1.0", "yesterday"));
  ASSERT_TRUE(recorded);
  const std::string name = std::filesystem::path(recorded->boot.path).filename().string();
  ASSERT_EQ(name.size(), std::string("20250101T000000Z-abcdef01.json.gz").size()) << name;
  EXPECT_EQ(name[8], 'T');
  EXPECT_TRUE(name.starts_with("20")) << name;
}

// Three readable boots and an unreadable file between them: the kernel change is against the
// readable boot listed before, and only the boot with this boot's id is this boot.
std::vector<BootRecord> three_boots_and_a_bad_file() {
  return {{"/h/1.json.gz", "aaa", "6.1.0-50-amd64", "2026-11-01T08:00:00Z", {}, {}, ""},
          {"/h/2.json.gz", "bbb", "6.1.0-50-amd64", "2026-11-02T08:00:00Z", {}, {}, ""},
          {"/h/x.json.gz", "", "", "", {}, {}, "truncated gzip stream"},
          {"/h/3.json.gz", "ccc", "6.12.0-1-amd64", "2026-11-03T08:00:00Z", {}, {}, ""}};
}

TEST(HistoryDocument, MarksWhereTheKernelChangedAndThisBoot) {
  const Json history = history_document("/h", three_boots_and_a_bad_file(), "ccc");
  EXPECT_EQ(history["directory"], "/h");
  const Json& boots = history["boots"];
  ASSERT_EQ(boots.size(), 4u);
  EXPECT_EQ(boots[0]["kernel_changed"], false);
  EXPECT_FALSE(boots[0].contains("previous_release"));
  EXPECT_EQ(boots[1]["kernel_changed"], false);
  EXPECT_EQ(boots[1]["previous_release"], "6.1.0-50-amd64");
  EXPECT_EQ(boots[2], Json({{"path", "/h/x.json.gz"}, {"error", "truncated gzip stream"}}));
  EXPECT_EQ(boots[3]["kernel_changed"], true);
  EXPECT_EQ(boots[3]["previous_release"], "6.1.0-50-amd64");
  EXPECT_EQ(boots[3]["this_boot"], true);
  EXPECT_EQ(boots[1]["this_boot"], false);
}

}  // namespace
}  // namespace kdrift
