#include "util/tarball.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fixtures.h"
#include "util/atomic_file.h"
#include "util/sysroot.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(Tarball, WritesAndExtractsFilesDirectoriesSymlinks) {
  auto bytes = make_tar_gz({{"sys", TarMember::Type::kDirectory, {}},
                            {"sys/a", TarMember::Type::kFile, std::string("x\0y", 3)},
                            {"sys/b", TarMember::Type::kSymlink, "a"}});
  ASSERT_TRUE(bytes.ok());
  TempDir dir;
  ASSERT_TRUE(write_file_atomically(dir.path() + "/t.tar.gz", *bytes).ok());
  ASSERT_TRUE(extract_tar_gz(dir.path() + "/t.tar.gz", dir.path() + "/out").ok());
  SysRoot root(dir.path() + "/out");
  EXPECT_EQ(*root.read("/sys/b"), std::string("x\0y", 3));
}

TEST(Tarball, RefusesMembersThatEscape) {
  TempDir dir;
  for (const auto& member : {TarMember{"../evil", TarMember::Type::kFile, "x"},
                             TarMember{"/abs", TarMember::Type::kFile, "x"}}) {
    auto bytes = make_tar_gz({member});
    ASSERT_TRUE(bytes.ok());
    ASSERT_TRUE(write_file_atomically(dir.path() + "/t.tar.gz", *bytes).ok());
    EXPECT_FALSE(extract_tar_gz(dir.path() + "/t.tar.gz", dir.path() + "/out").ok()) << member.path;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/evil"));
}

TEST(Tarball, TruncatedOrGarbageArchiveIsAnError) {
  // Incompressible content, so that cutting the archive in half cuts through the member's data.
  std::string noise(100000, '\0');
  uint32_t state = 12345;
  for (auto& c : noise) {
    state = state * 1103515245 + 12345;
    c = static_cast<char>(state >> 24);
  }
  auto bytes = make_tar_gz({{"f", TarMember::Type::kFile, noise}});
  ASSERT_TRUE(bytes.ok());
  TempDir dir;
  ASSERT_TRUE(
      write_file_atomically(dir.path() + "/t.tar.gz", bytes->substr(0, bytes->size() / 2)).ok());
  EXPECT_FALSE(extract_tar_gz(dir.path() + "/t.tar.gz", dir.path() + "/out").ok());
  ASSERT_TRUE(write_file_atomically(dir.path() + "/g.tar.gz", "garbage").ok());
  EXPECT_FALSE(extract_tar_gz(dir.path() + "/g.tar.gz", dir.path() + "/out2").ok());
}

}  // namespace
}  // namespace kdrift
