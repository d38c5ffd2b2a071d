#include "util/directory_backend.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "support/fixtures.h"
#include "util/sysroot.h"

namespace kdrift {
namespace {

using Lookup = DirectoryBackend::Lookup;
using testing::TempDir;

constexpr std::string_view kSecret = "the secret outside the root\n";

// Every case runs with openat2 and with the fallback the kernel without it gets.
class DirectoryRoot : public ::testing::TestWithParam<Lookup> {
 protected:
  DirectoryRoot() { outside_.write("secret", kSecret); }

  std::shared_ptr<const DirectoryBackend> backend() const {
    return std::make_shared<DirectoryBackend>(tree_.path(), GetParam());
  }
  SysRoot root() const { return SysRoot(tree_.path(), backend()); }
  std::string secret_path() const { return outside_.path() + "/secret"; }

  TempDir tree_;
  TempDir outside_;
};

TEST_P(DirectoryRoot, TheLookupAskedForIsTheOneUsed) {
  EXPECT_EQ(backend()->lookup(), GetParam());
}

TEST_P(DirectoryRoot, SymlinksOutOfTheRootStayInside) {
  tree_.write("proc/cmdline", "quiet\n");
  tree_.symlink("absolute", secret_path());
  tree_.symlink("dotdot", "../../../../../../../.." + secret_path());
  tree_.symlink("dir", outside_.path());
  for (const std::string path : {"/absolute", "/dotdot", "/dir/secret"}) {
    SCOPED_TRACE(path);
    auto read = root().read(path);
    ASSERT_FALSE(read.ok()) << *read;
    EXPECT_EQ(read.error().code, ENOENT);
  }
  EXPECT_EQ(*root().read("/proc/cmdline"), "quiet\n");
}

TEST_P(DirectoryRoot, TheBackendNeverFollowsASymlinkOrDotDot) {
  tree_.write("d/x", "inside\n");
  tree_.symlink("file", secret_path());
  tree_.symlink("dir", outside_.path());
  const auto reader = backend();
  EXPECT_FALSE(reader->read("/file", 4096, ReadExtent::kWhole).ok());
  EXPECT_FALSE(reader->read("/dir/secret", 4096, ReadExtent::kWhole).ok());
  EXPECT_FALSE(reader->list("/dir").ok());
  EXPECT_EQ(*reader->kind("/file"), EntryKind::kSymlink);
  EXPECT_EQ(*reader->link_target("/file"), secret_path());
  // ".." never reaches SysRoot's backend, but if it did it would not leave the root.
  const std::string up = "/d/../../../../../../.." + secret_path();
  auto escaped = reader->read(up, 4096, ReadExtent::kWhole);
  EXPECT_TRUE(!escaped.ok() || *escaped != kSecret);
}

TEST_P(DirectoryRoot, MagicLinksInsideTheRootAreNotFollowed) {
  // /proc/self as a root: its "root", "cwd" and "exe" are magic links to the real filesystem.
  const SysRoot proc("/proc/self", std::make_shared<DirectoryBackend>("/proc/self", GetParam()));
  auto through = proc.read("/root/etc/hostname");
  EXPECT_FALSE(through.ok());
  auto direct = DirectoryBackend("/proc/self", GetParam())
                    .read("/root/etc/hostname", 4096, ReadExtent::kWhole);
  EXPECT_FALSE(direct.ok());
  EXPECT_TRUE(DirectoryBackend("/proc/self", GetParam()).kind("/root").ok());
}

TEST_P(DirectoryRoot, AFileIsReadFromTheDescriptorThatWasChecked) {
  tree_.write("f", "plain\n");
  ::mkfifo((tree_.path() + "/fifo").c_str(), 0600);
  tree_.mkdir("d");
  const SysRoot reader = root();
  EXPECT_EQ(reader.read("/fifo").error().code, EINVAL);  // neither hangs nor reads
  EXPECT_EQ(reader.read("/d").error().code, EINVAL);
  EXPECT_EQ(*reader.read("/f"), "plain\n");
}

// A stranger flips a name between a plain file and a symlink to a file outside the root, and a
// directory between a real one and a symlink to a directory outside: no read may ever return the
// outside file.
TEST_P(DirectoryRoot, FlippingSymlinksNeverLeakTheOutsideFile) {
  tree_.write("plain", "plain\n");
  tree_.write("realdir/secret", "inside\n");
  tree_.symlink("link", secret_path());
  tree_.symlink("dirlink", outside_.path());
  const std::string base = tree_.path() + "/";
  std::atomic<bool> stop = false;
  std::thread flipper([&] {
    while (!stop) {
      // RENAME_EXCHANGE swaps each pair atomically: a name is always one or the other.
      ::renameat2(AT_FDCWD, (base + "plain").c_str(), AT_FDCWD, (base + "link").c_str(),
                  RENAME_EXCHANGE);
      ::renameat2(AT_FDCWD, (base + "realdir").c_str(), AT_FDCWD, (base + "dirlink").c_str(),
                  RENAME_EXCHANGE);
    }
  });
  int reads = 0;
  std::string leaked;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (leaked.empty() && std::chrono::steady_clock::now() < deadline) {
    const SysRoot reader = root();  // fresh, so no resolved directory is cached
    for (const std::string path : {"/plain", "/link", "/realdir/secret", "/dirlink/secret"}) {
      auto read = reader.read(path);
      if (read.ok() && *read == kSecret) leaked = path;
      reads += read.ok() ? 1 : 0;
    }
  }
  stop = true;
  flipper.join();
  EXPECT_EQ(leaked, "") << "the outside file was read through " << leaked;
  EXPECT_GT(reads, 0);  // the race ran through reads that succeed, too
}

// Where fs.protected_hardlinks is 0 a user may hard-link a root-only file into a tree they own
// and hand the tree to kdrift: the file reads as a plain regular file below the root.
TEST_P(DirectoryRoot, AFileTheTreesOwnerMayNotReadIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the tree to another user";
  constexpr uid_t kUser = 65534;
  tree_.write("proc/cmdline", "mine\n");
  tree_.write("proc/shared", "readable by all\n");
  tree_.write("proc/owned-unreadable", "mine too\n");
  ASSERT_EQ(::link(secret_path().c_str(), (tree_.path() + "/proc/linked").c_str()), 0);
  ::chmod(secret_path().c_str(), 0600);
  ::chmod((tree_.path() + "/proc/shared").c_str(), 0644);
  ::chmod((tree_.path() + "/proc/owned-unreadable").c_str(), 0);
  for (const std::string name : {"", "/proc", "/proc/cmdline", "/proc/owned-unreadable"})
    ASSERT_EQ(::chown((tree_.path() + name).c_str(), kUser, kUser), 0) << name;
  const SysRoot reader = root();
  const auto linked = reader.read("/proc/linked");
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().code, EACCES);
  EXPECT_NE(linked.error().context.find("uid 65534"), std::string::npos) << linked.error().context;
  EXPECT_EQ(*reader.read("/proc/cmdline"), "mine\n");
  EXPECT_EQ(*reader.read("/proc/shared"), "readable by all\n");
  EXPECT_EQ(*reader.read("/proc/owned-unreadable"), "mine too\n");  // its owner can chmod it
  // The same files in a tree root owns are root's to read.
  ASSERT_EQ(::chown(tree_.path().c_str(), 0, 0), 0);
  EXPECT_EQ(*root().read("/proc/linked"), kSecret);
}

INSTANTIATE_TEST_SUITE_P(Lookups, DirectoryRoot,
                         ::testing::Values(Lookup::kOpenat2, Lookup::kComponentWalk),
                         [](const auto& info) {
                           return info.param == Lookup::kOpenat2 ? std::string("Openat2")
                                                                 : std::string("ComponentWalk");
                         });

TEST(DirectoryBackend, AnUnopenableRootFailsEveryLookupWithItsError) {
  DirectoryBackend missing("/nonexistent/kdrift-root");
  EXPECT_EQ(missing.read("/proc/cmdline", 4096, ReadExtent::kWhole).error().code, ENOENT);
  EXPECT_EQ(missing.list("/").error().code, ENOENT);
}

}  // namespace
}  // namespace kdrift
