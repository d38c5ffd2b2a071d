#include "util/atomic_file.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <iterator>
#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(AtomicFile, WrittenThenReadWholeWithNoTemporaryLeft) {
  const TempDir dir;
  const std::string path = dir.path() + "/state.json";
  // Larger than one read(2) buffer, with a NUL in it: binary-safe and not cut.
  std::string content(200000, 'x');
  content[1000] = '\0';
  ASSERT_TRUE(write_file_atomically(path, "old").ok());
  ASSERT_TRUE(write_file_atomically(path, content).ok());
  auto read = read_whole_file(path, content.size());
  ASSERT_TRUE(read.ok()) << read.error().describe();
  EXPECT_EQ(*read, content);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(AtomicFile, ReadPastTheLimitOrOfAMissingFileIsAnErrorNamingThePath) {
  const TempDir dir;
  const std::string path = dir.path() + "/journal.jsonl";
  ASSERT_TRUE(write_file_atomically(path, std::string(100, 'y')).ok());
  auto too_big = read_whole_file(path, 99);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().code, EFBIG);
  EXPECT_NE(too_big.error().describe().find(path), std::string::npos);
  auto missing = read_whole_file(dir.path() + "/none", 100);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_NE(missing.error().describe().find("/none"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
