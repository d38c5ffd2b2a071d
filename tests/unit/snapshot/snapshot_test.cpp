#include "snapshot/snapshot.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "snapshot/sections.h"
#include "support/fixtures.h"
#include "util/gzip.h"

namespace kdrift {
namespace {

const std::string kHead = R"({"schema": "kdrift.snapshot/1", "x": [)";

std::string empty_arrays(size_t count) {
  std::string text = kHead;
  text.reserve(kHead.size() + 3 * count + 4);
  for (size_t i = 0; i < count; ++i)
    text += "[],";
  return text + "[]]}";
}

// Every registered section must be an object, and only those: a document's own keys elsewhere
// are not the reader's business.
TEST(Snapshot, EveryRegisteredSectionThatIsNotAnObjectIsNamed) {
  for (const SnapshotSection& section : kSnapshotSections) {
    Json document = {{"schema", kSnapshotSchema}, {std::string(section.name), Json::array()}};
    const auto parsed = parse_snapshot(document.dump(), "s.json");
    ASSERT_FALSE(parsed) << section.name;
    EXPECT_NE(parsed.error().describe().find("section \"" + std::string(section.name) + "\""),
              std::string::npos)
        << parsed.error().describe();
  }
  EXPECT_TRUE(parse_snapshot(R"({"schema": "kdrift.snapshot/1", "extra": []})", "s.json"));
}

TEST(Snapshot, AMillionValuesAreReadMoreAreRefusedWhileParsing) {
  // The envelope, its "x" array and 999,997 empty arrays: a million values.
  ASSERT_TRUE(parse_snapshot(empty_arrays(999996), "ok.json").ok());
  auto refused = parse_snapshot(empty_arrays(999997), "bomb.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(), "bomb.json: more than 1000000 values");
}

TEST(Snapshot, NestingDeeperThan64IsRefused) {
  auto refused =
      parse_snapshot(kHead + std::string(64, '[') + std::string(64, ']') + "]}", "deep.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(), "deep.json: nested deeper than 64 levels");
}

TEST(Snapshot, GzipInflatesNoFurtherThanTheTextLimit) {
  // 36 MB of JSON that packs to a few KB.
  auto packed = gzip(kHead + "0" + std::string(36 << 20, ' ') + "]}", "bomb");
  ASSERT_TRUE(packed.ok());
  auto refused = read_snapshot_text(*packed, "bomb.json.gz");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().describe().find("bomb.json.gz: decompresses to more than"),
            std::string::npos)
      << refused.error().describe();
}

TEST(Snapshot, FilesAreReadOnlyWhenRegularAndWithinTheLimit) {
  const testing::TempDir dir;
  dir.write("good.json", R"({"schema": "kdrift.snapshot/1"})");
  auto read = read_snapshot_file(dir.path() + "/good.json");
  ASSERT_TRUE(read.ok()) << read.error().describe();
  const std::string fifo = dir.path() + "/fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto refused = read_snapshot_file(fifo);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(), fifo + ": a FIFO, not a regular file");
  dir.write("big.json", std::string((32 << 20) + 1, ' '));
  refused = read_snapshot_file(dir.path() + "/big.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, EFBIG);
}

}  // namespace
}  // namespace kdrift
