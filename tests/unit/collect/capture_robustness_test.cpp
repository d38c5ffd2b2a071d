// Bad input end to end: every file of a real dump damaged the same way (emptied, replaced by
// garbage, cut in half, made a directory). Capture must finish, keep the snapshot schema, and say
// what it could not read, never crash or throw.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "collect/capture.h"
#include "support/fixtures.h"

namespace fs = std::filesystem;

namespace kdrift {
namespace {

size_t count_unavailable(const Json& node) {
  size_t count = 0;
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      count += key == "unavailable" && value.is_object() ? value.size() : count_unavailable(value);
    }
  } else if (node.is_array()) {
    for (const auto& value : node)
      count += count_unavailable(value);
  }
  return count;
}

void damage_every_file(const std::string& dir, const std::function<void(const fs::path&)>& damage) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && !entry.is_symlink() &&
        entry.path().filename() != "kdrift-sysroot.json") {
      files.push_back(entry.path());
    }
  }
  for (const auto& file : files)
    damage(file);
}

std::string content_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void overwrite(const fs::path& file, const std::string& content) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
}

class DamagedDump : public ::testing::Test {
 protected:
  void check(const std::function<void(const fs::path&)>& damage) {
    const auto names = testing::fixture_sysroot_names();
    if (names.empty()) GTEST_SKIP() << "no fixtures in tests/fixtures/sysroots";
    for (const auto& name : names) {
      SCOPED_TRACE(name);
      testing::TempDir copy;
      testing::unpack_archive(testing::fixture_archive(name), copy.path());
      const Json intact = capture_snapshot(SysRoot(copy.path()));
      damage_every_file(copy.path(), damage);
      Json damaged;
      ASSERT_NO_THROW(damaged = capture_snapshot(SysRoot(copy.path())));
      EXPECT_EQ(damaged["schema"], "kdrift.snapshot/1");
      EXPECT_GT(count_unavailable(damaged), count_unavailable(intact));
      EXPECT_NO_THROW((void)to_text(damaged));  // invalid UTF-8 is replaced, not thrown
    }
  }
};

TEST_F(DamagedDump, EveryFileEmpty) {
  check([](const fs::path& file) { overwrite(file, ""); });
}

TEST_F(DamagedDump, EveryFileGarbage) {
  check([](const fs::path& file) { overwrite(file, "\xff\xfe\x00garbage\n-1\n0x\n[\n"); });
}

TEST_F(DamagedDump, EveryFileCutInHalf) {
  check([](const fs::path& file) {
    const std::string content = content_of(file);
    overwrite(file, content.substr(0, content.size() / 2));
  });
}

TEST_F(DamagedDump, EveryFileADirectory) {
  check([](const fs::path& file) {
    fs::remove(file);
    fs::create_directory(file);
  });
}

}  // namespace
}  // namespace kdrift
