#include "util/trusted_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr uid_t kNobody = 65534;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Giving a directory to another user needs root; the checks on modes and links do not.
#define REQUIRE_ROOT()                                                       \
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: chown to another user"; \
  static_assert(true)

TEST(TrustedDir, EveryFileIsReachedThroughTheDescriptorOpenedOnce) {
  TempDir tmp;
  tmp.mkdir("state");
  auto dir = TrustedDir::open(tmp.path() + "/state");
  ASSERT_TRUE(dir) << dir.error().describe();
  EXPECT_EQ(dir->path_of("a.json"), tmp.path() + "/state/a.json");
  ASSERT_TRUE(dir->replace_file("a.json", "one\n"));
  EXPECT_EQ(mode_of(tmp.path() + "/state/a.json"), 0600u);
  // Renamed away after the check, and something else put in its place: the descriptor still
  // reaches the directory that was checked, never the one now at the path.
  ASSERT_EQ(std::rename((tmp.path() + "/state").c_str(), (tmp.path() + "/moved").c_str()), 0);
  tmp.write("state/a.json", "planted\n");
  auto read = dir->read_file("a.json", 100);
  ASSERT_TRUE(read) << read.error().describe();
  EXPECT_EQ(*read, "one\n");
  ASSERT_TRUE(dir->replace_file("b.json", "two\n"));
  EXPECT_EQ(testing::read_bytes(tmp.path() + "/moved/b.json"), "two\n");
  EXPECT_FALSE(testing::read_bytes(tmp.path() + "/state/b.json").size() > 0);
  auto names = dir->list();
  ASSERT_TRUE(names);
  EXPECT_EQ(names->size(), 2u);
  EXPECT_TRUE(dir->contains("b.json"));
  ASSERT_TRUE(dir->remove_file("b.json"));
  ASSERT_TRUE(dir->remove_file("b.json"));  // already gone is fine
  EXPECT_FALSE(dir->contains("b.json"));
  EXPECT_EQ(dir->read_file("b.json", 100).error().code, ENOENT);
  // Names only: nothing leads out of the directory.
  for (const char* name : {"../x", "", ".", "..", "a/b"}) {
    EXPECT_EQ(dir->read_file(name, 100).error().code, EINVAL) << name;
    EXPECT_EQ(dir->replace_file(name, "x").error().code, EINVAL) << name;
  }
}

TEST(TrustedDir, ADirectoryOthersCanWriteIsRefusedNamingItsMode) {
  TempDir tmp;
  tmp.mkdir("shared/state");
  ASSERT_EQ(::chmod((tmp.path() + "/shared/state").c_str(), 0777), 0);
  auto open = TrustedDir::open(tmp.path() + "/shared/state");
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().code, EPERM);
  EXPECT_NE(open.error().describe().find(tmp.path() + "/shared/state is writable by its group or "
                                                      "others (mode 0777)"),
            std::string::npos)
      << open.error().describe();
  // An ancestor is held to the same rule: whoever can write it can exchange the directory.
  ASSERT_EQ(::chmod((tmp.path() + "/shared/state").c_str(), 0700), 0);
  ASSERT_EQ(::chmod((tmp.path() + "/shared").c_str(), 0775), 0);
  open = TrustedDir::open(tmp.path() + "/shared/state");
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().describe().find(tmp.path() + "/shared is writable by its group"),
            std::string::npos)
      << open.error().describe();
  ASSERT_EQ(::chmod((tmp.path() + "/shared").c_str(), 0755), 0);
  EXPECT_TRUE(TrustedDir::open(tmp.path() + "/shared/state"));
}

TEST(TrustedDir, ADirectoryOrAncestorOwnedByAnotherUserIsRefusedNamingTheOwner) {
  REQUIRE_ROOT();
  TempDir tmp;
  tmp.mkdir("parent/state");
  ASSERT_EQ(::chown((tmp.path() + "/parent/state").c_str(), kNobody, kNobody), 0);
  auto open = TrustedDir::open(tmp.path() + "/parent/state");
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().describe().find("/parent/state is owned by uid 65534"), std::string::npos)
      << open.error().describe();
  ASSERT_EQ(::chown((tmp.path() + "/parent/state").c_str(), 0, 0), 0);
  ASSERT_EQ(::chown((tmp.path() + "/parent").c_str(), kNobody, kNobody), 0);
  open = TrustedDir::open(tmp.path() + "/parent/state");
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().describe().find(tmp.path() + "/parent is owned by uid 65534"),
            std::string::npos)
      << open.error().describe();
}

// /tmp's case: others may add entries to a root-owned sticky directory but not rename or
// remove ours, so it is safe on the way; at the end, and when another user owns it, it is not.
TEST(TrustedDir, ARootOwnedStickyAncestorIsAcceptedAndNothingElseThatIsShared) {
  REQUIRE_ROOT();
  TempDir tmp;
  tmp.mkdir("sticky/state");
  ASSERT_EQ(::chmod((tmp.path() + "/sticky").c_str(), 01777), 0);
  EXPECT_TRUE(TrustedDir::open(tmp.path() + "/sticky/state"));
  auto at_the_end = TrustedDir::open(tmp.path() + "/sticky");
  ASSERT_FALSE(at_the_end);
  EXPECT_NE(at_the_end.error().describe().find("mode 1777"), std::string::npos);
  ASSERT_EQ(::chown((tmp.path() + "/sticky").c_str(), kNobody, kNobody), 0);
  EXPECT_FALSE(TrustedDir::open(tmp.path() + "/sticky/state"));
  // An entry another user made in the sticky directory is theirs: refused.
  ASSERT_EQ(::chown((tmp.path() + "/sticky").c_str(), 0, 0), 0);
  ASSERT_EQ(::chown((tmp.path() + "/sticky/state").c_str(), kNobody, kNobody), 0);
  EXPECT_FALSE(TrustedDir::open(tmp.path() + "/sticky/state"));
}

TEST(TrustedDir, ASymlinkOnTheWayOrAtTheEndIsRefused) {
  TempDir tmp;
  tmp.mkdir("real/state");
  tmp.symlink("link", tmp.path() + "/real");
  tmp.symlink("real/alias", tmp.path() + "/real/state");
  for (const std::string& path : {tmp.path() + "/link/state", tmp.path() + "/real/alias"}) {
    auto open = TrustedDir::open(path);
    ASSERT_FALSE(open) << path;
    EXPECT_EQ(open.error().code, ELOOP);
    EXPECT_NE(open.error().describe().find("is a symbolic link"), std::string::npos)
        << open.error().describe();
  }
  // Inside, a symlink is never followed either.
  auto dir = TrustedDir::open(tmp.path() + "/real");
  ASSERT_TRUE(dir);
  tmp.write("secret", "x\n");
  tmp.symlink("real/state/file", tmp.path() + "/secret");
  EXPECT_EQ(dir->read_file("alias", 100).error().code, ELOOP);
  auto sub = dir->subdirectory("state");
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->read_file("file", 100).error().code, ELOOP);
  EXPECT_FALSE(sub->open_file("file", O_RDWR | O_APPEND));
  EXPECT_FALSE(dir->subdirectory("alias"));
}

TEST(TrustedDir, MissingComponentsAreCreatedWithTheModeWhateverTheUmask) {
  TempDir tmp;
  const std::string path = tmp.path() + "/var/lib/kdrift";
  EXPECT_EQ(TrustedDir::open(path).error().code, ENOENT);
  const mode_t old_umask = ::umask(002);  // would leave new directories group-writable
  auto created = TrustedDir::open(path, TrustedDir::Missing::kCreate, 0755);
  ::umask(old_umask);
  ASSERT_TRUE(created) << created.error().describe();
  EXPECT_EQ(mode_of(tmp.path() + "/var"), 0755u);
  EXPECT_EQ(mode_of(path), 0755u);
  auto sub = created->subdirectory("snapshots", TrustedDir::Missing::kCreate, 0700);
  ASSERT_TRUE(sub);
  EXPECT_EQ(mode_of(path + "/snapshots"), 0700u);
  EXPECT_EQ(sub->path(), path + "/snapshots");
  // Empty: removed; holding something: kept.
  ASSERT_TRUE(sub->replace_file("x", "x"));
  ASSERT_TRUE(sub->remove_if_empty());
  EXPECT_EQ(mode_of(path + "/snapshots"), 0700u);
  ASSERT_TRUE(sub->remove_file("x"));
  ASSERT_TRUE(sub->remove_if_empty());
  EXPECT_FALSE(created->contains("snapshots"));
}

TEST(TrustedDir, RelativePathsStartAtTheWorkingDirectoryAndDotDotIsRefused) {
  TempDir tmp;
  tmp.mkdir("state");
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(tmp.path().c_str()), 0);
  auto relative = TrustedDir::open("./state");
  auto dotdot = TrustedDir::open("state/../state");
  ASSERT_EQ(::chdir(cwd), 0);
  ASSERT_TRUE(relative) << relative.error().describe();
  EXPECT_EQ(relative->path(), "./state");
  ASSERT_FALSE(dotdot);
  EXPECT_EQ(dotdot.error().code, EINVAL);
}

TEST(TrustedDir, AFifoOrDirectoryWhereAFileBelongsIsRefusedWithoutBlocking) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp.path() + "/fifo").c_str(), 0600), 0);
  tmp.mkdir("dir");
  auto dir = TrustedDir::open(tmp.path());
  ASSERT_TRUE(dir);
  EXPECT_FALSE(dir->read_file("fifo", 100));
  EXPECT_FALSE(dir->open_file("fifo", O_WRONLY));
  EXPECT_FALSE(dir->read_file("dir", 100));
}

}  // namespace
}  // namespace kdrift
