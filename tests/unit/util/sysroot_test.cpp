#include "util/sysroot.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "support/fixtures.h"
#include "util/access_log.h"
#include "util/directory_backend.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(SysRoot, ReadsBelowRootAndResolvesRelativeSymlinksInside) {
  TempDir tree;
  tree.write("sys/devices/pci0000:00/0000:00:01.0/block/vda/queue/scheduler",
             "[none] mq-deadline\n");
  tree.symlink("sys/block/vda", "../devices/pci0000:00/0000:00:01.0/block/vda");
  SysRoot root(tree.path());
  auto value = root.read_value("/sys/block/vda/queue/scheduler");
  ASSERT_TRUE(value.ok()) << value.error().describe();
  EXPECT_EQ(*value, "[none] mq-deadline");
  EXPECT_EQ(*root.resolve("/sys/block/vda"), "/sys/devices/pci0000:00/0000:00:01.0/block/vda");
  EXPECT_EQ(*root.link_target("/sys/block/vda"), "../devices/pci0000:00/0000:00:01.0/block/vda");
}

TEST(SysRoot, AbsoluteSymlinksStayInsideRoot) {
  TempDir tree;
  tree.write("boot/config-1", "CONFIG_X=y\n");
  tree.symlink("boot/config", "/boot/config-1");
  tree.symlink("escape", "/etc/passwd");  // must not reach the real /etc
  SysRoot root(tree.path());
  EXPECT_EQ(*root.read("/boot/config"), "CONFIG_X=y\n");
  auto escaped = root.read("/escape");
  ASSERT_FALSE(escaped.ok());
  EXPECT_EQ(escaped.error().code, ENOENT);
}

TEST(SysRoot, SymlinkLoopIsAnErrorNotAHang) {
  TempDir tree;
  tree.symlink("sys/a", "b");
  tree.symlink("sys/b", "a");
  SysRoot root(tree.path());
  auto result = root.read("/sys/a/x");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ELOOP);
  EXPECT_NE(result.error().describe().find("/sys/a/x"), std::string::npos);
}

TEST(SysRoot, MissingFileNamesThePath) {
  TempDir tree;
  SysRoot root(tree.path());
  auto result = root.read("/proc/config.gz");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ENOENT);
  EXPECT_EQ(result.error().describe(), "/proc/config.gz: No such file or directory");
}

TEST(SysRoot, HugeFileIsRefusedNotTruncated) {
  TempDir tree;
  tree.write("proc/big", std::string(4096, 'a'));
  SysRoot root(tree.path());
  auto result = root.read("/proc/big", 1000);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, EFBIG);
}

// Each directory is resolved from its parent's resolution: a step through a file still fails
// as the kernel's lookup does, "file/.." included.
TEST(SysRoot, AFileIsNoDirectoryToWalkThroughOrOutOf) {
  TempDir tree;
  tree.write("sys/block/vda/size", "8\n");
  tree.write("sys/block/vda/ro", "0\n");
  SysRoot root(tree.path());
  for (const auto* path :
       {"/sys/block/vda/size/../ro", "/sys/block/vda/size/x", "/sys/block/vda/size/../../vda/ro"}) {
    auto read = root.read(path);
    ASSERT_FALSE(read.ok()) << path;
    EXPECT_EQ(read.error().code, ENOTDIR) << path;
    EXPECT_NE(read.error().describe().find(path), std::string::npos) << read.error().describe();
  }
  EXPECT_EQ(root.list("/sys/block/vda/size/..").error().code, ENOTDIR);
  EXPECT_EQ(*root.read("/sys/block/vda/../vda/ro"), "0\n");
  EXPECT_EQ(*root.resolve("/sys/block/../block/vda"), "/sys/block/vda");
}

// Counts the lookups a reader asks its backend for, keeps every path it is given, and adds
// extra_entries to each listing (an input's names, as hostile as wanted).
class CountingBackend final : public SysRootBackend {
 public:
  explicit CountingBackend(const std::string& root) : inner_(root) {}
  Result<EntryKind> kind(const std::string& path) const override {
    ++kinds[path];
    asked.push_back(path);
    return inner_.kind(path);
  }
  Result<std::string> link_target(const std::string& path) const override {
    ++targets[path];
    asked.push_back(path);
    return inner_.link_target(path);
  }
  Result<std::string> read(const std::string& path, size_t max_bytes,
                           ReadExtent extent) const override {
    asked.push_back(path);
    return inner_.read(path, max_bytes, extent);
  }
  Result<std::vector<DirEntry>> list(const std::string& path) const override {
    auto entries = inner_.list(path);
    if (entries) entries->insert(entries->end(), extra_entries.begin(), extra_entries.end());
    return entries;
  }
  Result<std::string> host_path(const std::string& path) const override {
    return inner_.host_path(path);
  }
  mutable std::map<std::string, int> kinds;
  mutable std::map<std::string, int> targets;
  mutable std::vector<std::string> asked;
  std::vector<DirEntry> extra_entries;

 private:
  DirectoryBackend inner_;
};

// Links into /sys/devices share their first components, and the collectors ask about each disk
// several ways: every directory and link is looked up once per reader, and what the reader saw
// first is what it keeps answering (a link re-pointed later is not half seen).
TEST(SysRoot, EachDirectoryAndLinkIsLookedUpOnce) {
  TempDir tree;
  for (const auto* disk : {"loop0", "loop1"}) {
    tree.write(std::string("sys/devices/virtual/block/") + disk + "/size", "0\n");
    tree.symlink(std::string("sys/block/") + disk, std::string("../devices/virtual/block/") + disk);
  }
  auto backend = std::make_shared<CountingBackend>(tree.path());
  SysRoot root("tree", backend);
  for (const auto* disk : {"loop0", "loop1"}) {
    const std::string link = std::string("/sys/block/") + disk;
    const std::string device = std::string("/sys/devices/virtual/block/") + disk;
    EXPECT_EQ(*root.resolve(link), device);
    EXPECT_EQ(*root.kind(link), EntryKind::kSymlink);
    EXPECT_EQ(*root.link_target(link), std::string("../devices/virtual/block/") + disk);
    EXPECT_EQ(*root.read(link + "/size"), "0\n");
    EXPECT_EQ(*root.read(device + "/size"), "0\n");
    EXPECT_EQ(*root.kind(device), EntryKind::kDirectory);
  }
  for (const auto& [path, count] : backend->kinds)
    EXPECT_EQ(count, 1) << path;
  for (const auto& [path, count] : backend->targets)
    EXPECT_EQ(count, 1) << path;
  EXPECT_EQ(backend->targets.size(), 2U);

  std::filesystem::remove(tree.path() + "/sys/block/loop0");
  tree.symlink("sys/block/loop0", "../devices/virtual/block/loop1");
  EXPECT_EQ(*root.resolve("/sys/block/loop0"), "/sys/devices/virtual/block/loop0");
  EXPECT_EQ(*root.link_target("/sys/block/loop0"), "../devices/virtual/block/loop0");
  EXPECT_EQ(*SysRoot(tree.path()).resolve("/sys/block/loop0"), "/sys/devices/virtual/block/loop1");
}

// /proc is listed and then one file of each process read: the listing already said each
// process is a directory.
TEST(SysRoot, AListingSparesTheLookupOfTheDirectoriesInIt) {
  TempDir tree;
  tree.write("proc/12/comm", "irqbalance\n");
  tree.write("proc/345/comm", "tuned\n");
  tree.write("proc/uptime", "1.0 2.0\n");
  auto backend = std::make_shared<CountingBackend>(tree.path());
  SysRoot root("tree", backend);
  ASSERT_EQ(*root.list("/proc"), (std::vector<std::string>{"12", "345", "uptime"}));
  EXPECT_EQ(*root.read_value("/proc/12/comm"), "irqbalance");
  EXPECT_EQ(*root.read_value("/proc/345/comm"), "tuned");
  EXPECT_EQ(backend->kinds.count("/proc/12"), 0U);
  EXPECT_EQ(backend->kinds.count("/proc/345"), 0U);
  EXPECT_EQ(root.read("/proc/uptime/x").error().code, ENOTDIR);  // a file listed is no directory
}

// A listing's names come from the input (an archive can hold any): one that is not a plain
// name is never taken as a directory, so no path with ".." or an extra "/" reaches the backend,
// whose paths have neither.
TEST(SysRoot, AListingsNamesThatAreNoPlainNameAreNotTakenAsDirectories) {
  TempDir tree;
  tree.write("proc/1/comm", "init\n");
  tree.write("secret", "outside proc\n");
  auto backend = std::make_shared<CountingBackend>(tree.path());
  for (const auto* name : {"..", ".", "", "x/..", "a/b"})
    backend->extra_entries.push_back({name, EntryKind::kDirectory});
  SysRoot root("tree", backend);
  ASSERT_TRUE(root.list("/proc").ok());
  EXPECT_EQ(*root.read_value("/proc/1/comm"), "init");
  EXPECT_EQ(*root.read_value("/proc/../secret"), "outside proc");  // "..": the parent, as ever
  EXPECT_FALSE(root.read("/proc/a/b/x").ok());
  for (const auto& path : backend->asked) {
    EXPECT_EQ(path.find(".."), std::string::npos) << path;
    EXPECT_EQ(path.find("//"), std::string::npos) << path;
  }
}

// A first record is a head everywhere: a tree's regular file is cut at max_bytes as read_head
// cuts it, and the live host's one-record files read the same as whole.
TEST(SysRoot, AFirstRecordIsTheHeadOfAFileAndAllOfAOneRecordKernelFile) {
  TempDir tree;
  tree.write("proc/12/comm", "a-name-longer-than-eight\n");
  SysRoot root(tree.path());
  EXPECT_EQ(*root.read_first_record("/proc/12/comm", 8), "a-name-l");
  EXPECT_EQ(*root.read_first_record("/proc/12/comm", 64), "a-name-longer-than-eight\n");
  const SysRoot live("/");
  for (const auto* path : {"/proc/self/comm", "/proc/sys/kernel/osrelease"}) {
    auto whole = live.read(path);
    if (!whole) GTEST_SKIP() << path << ": " << whole.error().describe();
    EXPECT_EQ(*live.read_first_record(path, 4096), *whole) << path;
  }
}

TEST(SysRoot, DirectoryIsNotAFile) {
  TempDir tree;
  tree.mkdir("sys/class/iommu");
  SysRoot root(tree.path());
  EXPECT_FALSE(root.read("/sys/class/iommu").ok());
  auto names = root.list("/sys/class/iommu");
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

TEST(SysRoot, UnreadableFileIsAnError) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads mode-000 files; covered by the replay test";
  TempDir tree;
  tree.write("sys/secret", "x");
  chmod((tree.path() + "/sys/secret").c_str(), 0);
  SysRoot root(tree.path());
  auto result = root.read("/sys/secret");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, EACCES);
}

TEST(SysRoot, ListIsSortedAndRecordsKinds) {
  TempDir tree;
  tree.write("sys/block/zz/size", "1");
  tree.mkdir("sys/block/aa");
  tree.symlink("sys/block/mm", "aa");
  SysRoot root(tree.path());
  AccessLog log;
  root.record_to(&log);
  auto names = root.list("/sys/block");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"aa", "mm", "zz"}));
  EXPECT_EQ(log.symlinks().at("/sys/block/mm"), "aa");
  EXPECT_EQ(log.directories().count("/sys/block/aa"), 1u);
}

TEST(SysRoot, ListEntriesGivesKindsWithoutFollowingLinks) {
  TempDir tree;
  tree.write("sys/block/vda/queue/nr_requests", "64\n");
  tree.mkdir("sys/block/vda/queue/iosched");
  tree.symlink("sys/block/vda/queue/link", "nr_requests");
  tree.write("kdrift-sysroot.json", R"({"unread": ["/sys/block/vda/queue/extra"]})");
  SysRoot root(tree.path());
  auto entries = root.list_entries("/sys/block/vda/queue");
  ASSERT_TRUE(entries.ok()) << entries.error().describe();
  std::vector<std::pair<std::string, EntryKind>> seen;
  for (const auto& entry : *entries)
    seen.emplace_back(entry.name, entry.kind);
  EXPECT_EQ(seen,
            (std::vector<std::pair<std::string, EntryKind>>{{"extra", EntryKind::kFile},
                                                            {"iosched", EntryKind::kDirectory},
                                                            {"link", EntryKind::kSymlink},
                                                            {"nr_requests", EntryKind::kFile}}));
}

TEST(SysRoot, ManifestReplaysErrorsAndUnreadListings) {
  TempDir tree;
  tree.write("sys/block/vda/queue/nr_requests", "64\n");
  tree.write("kdrift-sysroot.json",
             R"({"errors": {"/sys/block/vda/queue/io_timeout": 13},
                 "unread": ["/sys/block/vda/queue/extra"]})");
  SysRoot root(tree.path());
  auto denied = root.read("/sys/block/vda/queue/io_timeout");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, EACCES);
  auto names = root.list("/sys/block/vda/queue");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"extra", "nr_requests"}));
  auto unread = root.read("/sys/block/vda/queue/extra");
  ASSERT_FALSE(unread.ok());
  EXPECT_EQ(unread.error().code, ENODATA);
  for (const auto& name : root.list("/").value_or({}))
    EXPECT_NE(name, kDumpManifest);
}

TEST(SysRoot, DamagedManifestIsIgnored) {
  TempDir tree;
  tree.write("kdrift-sysroot.json", "{not json");
  tree.write("proc/cmdline", "quiet\n");
  SysRoot root(tree.path());
  EXPECT_EQ(*root.read_value("/proc/cmdline"), "quiet");
}

}  // namespace
}  // namespace kdrift
