#include "util/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
#include <string>

#include "support/fixtures.h"
#include "util/input_file.h"

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

}  // namespace
}  // namespace kdrift
