#include "util/sysroot_open.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "support/fixtures.h"
#include "util/archive_backend.h"
#include "util/subtree_backend.h"
#include "util/tarball.h"

namespace kdrift {
namespace {

using Member = TarMember;
using testing::TempDir;

std::string write_archive(const TempDir& dir, const std::vector<TarMember>& members) {
  auto bytes = make_tar_gz(members);
  if (!bytes) throw std::runtime_error(bytes.error().describe());
  std::string path = dir.path() + "/dump.tar.gz";
  std::ofstream(path, std::ios::binary) << *bytes;
  return path;
}

// The shape of util-linux's lscpu dumps: a folder named for the machine, /proc and /sys inside,
// symlinks absolute as on that machine.
const std::vector<TarMember> kLscpuShaped = {
    {"arm64-x/proc/cpuinfo", Member::Type::kFile, "processor\t: 0\n"},
    {"arm64-x/sys/devices/system/cpu/online", Member::Type::kFile, "0-3\n"},
    {"arm64-x/sys/bus/cpu/devices/cpu0", Member::Type::kSymlink, "/sys/devices/system/cpu/cpu0"},
    {"arm64-x/sys/devices/system/cpu/cpu0/online", Member::Type::kFile, "1\n"},
};

TEST(SysrootOpen, AnArchiveWithOneTopFolderIsReadFromInsideIt) {
  TempDir dir;
  auto root = open_sysroot(write_archive(dir, kLscpuShaped));
  ASSERT_TRUE(root.ok()) << root.error().describe();
  EXPECT_EQ(*root->read_value("/sys/devices/system/cpu/online"), "0-3");
  // An absolute target means the dump's own /sys, inside the folder.
  EXPECT_EQ(*root->read_value("/sys/bus/cpu/devices/cpu0/online"), "1");
  EXPECT_EQ(root->root(), dir.path() + "/dump.tar.gz");
  EXPECT_FALSE(root->live());
}

TEST(SysrootOpen, AnArchiveHoldsOnlyWhatACaptureReads) {
  TempDir dir;
  auto root = open_sysroot(
      write_archive(dir, {{"sosreport-h/proc/cmdline", Member::Type::kFile, "quiet\n"},
                          {"sosreport-h/version.txt", Member::Type::kFile, "sosreport: 4.5\n"},
                          {"sosreport-h/var/log/syslog", Member::Type::kFile, "log\n"},
                          {"sosreport-h/sos_commands/kernel/dmesg", Member::Type::kFile, "x\n"},
                          {"sosreport-h/sos_commands/logs/journal", Member::Type::kFile, "j\n"}}),
      SourceFormat{.layer = nullptr, .reads = {"sos_commands/kernel/dmesg"}});
  ASSERT_TRUE(root.ok()) << root.error().describe();
  EXPECT_EQ(*root->read_value("/proc/cmdline"), "quiet");
  EXPECT_EQ(*root->read_value("/version.txt"), "sosreport: 4.5");
  EXPECT_EQ(*root->read_value("/sos_commands/kernel/dmesg"), "x");
  for (const char* unread : {"/var/log/syslog", "/sos_commands/logs/journal"}) {
    const auto read = root->read(unread);
    ASSERT_FALSE(read.ok()) << unread;
    EXPECT_EQ(read.error().code, ENODATA) << unread;
    EXPECT_NE(read.error().context.find("outside what kdrift reads"), std::string::npos);
  }
  EXPECT_EQ(root->list("/var/log")->size(), 1u);  // still listed by name
}

TEST(SysrootOpen, CaptureMayReadTheHostsFoldersAtTheTopOrInTheOneFolder) {
  const SourceFormat sos{.layer = nullptr, .reads = {"sos_commands/kernel/dmesg"}};
  for (const char* held :
       {"/proc/cmdline", "/x/proc/cmdline", "/sys/block/vda/size", "/h/boot/config-6.1.0",
        "/h/etc/tuned/active_profile", "/dev/kmsg", "/kdrift-sysroot.json", "/h/version.txt",
        "/h/sos_commands/kernel/dmesg"})
    EXPECT_TRUE(capture_may_read(held, sos)) << held;
  for (const char* skipped :
       {"/h/var/log/syslog", "/var/log/syslog", "/h/proc2/x", "/h/sos_commands/kernel/dmesg.1",
        "/h/sos_commands/logs/journal", "/a/b/proc/cmdline", "/h/sos_reports/sos.json"})
    EXPECT_FALSE(capture_may_read(skipped, sos)) << skipped;
  EXPECT_FALSE(capture_may_read("/h/sos_commands/kernel/dmesg", SourceFormat{}));
}

TEST(SysrootOpen, ADirectoryWithOneTopFolderIsReadFromInsideIt) {
  TempDir dir;
  dir.write("sosreport-host-2026/proc/cmdline", "quiet\n");
  dir.write("sosreport-host-2026/sys/block/loop0/queue/nomerges", "0\n");
  dir.symlink("sosreport-host-2026/sys/class/block/loop0", "../../block/loop0");
  auto root = open_sysroot(dir.path());
  ASSERT_TRUE(root.ok()) << root.error().describe();
  EXPECT_EQ(*root->read_value("/proc/cmdline"), "quiet");
  EXPECT_EQ(*root->read_value("/sys/class/block/loop0/queue/nomerges"), "0");
  EXPECT_EQ(root->root(), dir.path());
}

TEST(SysrootOpen, ATreeWithProcSysOrAManifestAtItsTopIsReadThere) {
  for (const char* marker : {"proc/cmdline", "sys/kernel/x", "kdrift-sysroot.json"}) {
    TempDir dir;
    dir.write(marker, "{}");
    dir.write("only/proc/cmdline", "from the folder\n");
    auto root = open_sysroot(dir.path());
    ASSERT_TRUE(root.ok()) << marker << ": " << root.error().describe();
    EXPECT_EQ(*root->read("/" + std::string(marker)), "{}") << marker;
  }
}

TEST(SysrootOpen, HiddenEntriesBesideTheFolderDoNotCount) {
  TempDir dir;
  dir.write(".DS_Store", "x");
  dir.write("._dump", "x");
  dir.write("dump/proc/cmdline", "quiet\n");
  auto root = open_sysroot(dir.path());
  ASSERT_TRUE(root.ok()) << root.error().describe();
  EXPECT_EQ(*root->read_value("/proc/cmdline"), "quiet");
}

TEST(SysrootOpen, ATreeWithoutAHostIsRefusedSayingWhatItHolds) {
  TempDir dir;
  dir.write("etc/hostname", "x\n");
  dir.write("var/log/messages", "x\n");
  dir.write("README", "x\n");
  auto root = open_sysroot(dir.path());
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.error().describe(),
            "neither proc/ nor sys/ nor kdrift-sysroot.json at its top, and not one folder "
            "holding them (found README, etc/, var/)");
}

TEST(SysrootOpen, AFolderWithoutAHostInsideIsRefusedNamingIt) {
  TempDir dir;
  auto archive = write_archive(dir, {{"photos/cat.jpg", Member::Type::kFile, "x"}});
  auto root = open_sysroot(archive);
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.error().describe().find("in its one folder /photos/ (found cat.jpg there)"),
            std::string::npos)
      << root.error().describe();
}

TEST(SysrootOpen, AnEmptyTreeSaysSo) {
  TempDir dir;
  dir.mkdir("empty");
  auto root = open_sysroot(dir.path() + "/empty");
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.error().describe().find("it is empty"), std::string::npos);
}

TEST(SysrootOpen, ATopFolderThatIsASymlinkIsNotFollowed) {
  TempDir dir;
  TempDir elsewhere;
  elsewhere.write("proc/cmdline", "not in the tree\n");
  dir.symlink("top", elsewhere.path());
  auto root = open_sysroot(dir.path());
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.error().describe().find("found top"), std::string::npos)
      << root.error().describe();
}

TEST(SysrootOpen, NamesInTheRefusalAreSafeToPrintAndBounded) {
  TempDir dir;
  for (int i = 0; i < 12; ++i)
    dir.write("f" + std::to_string(i) + "\x1b[2J", "x");
  auto root = open_sysroot(dir.path());
  ASSERT_FALSE(root.ok());
  const std::string message = root.error().describe();
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
  EXPECT_NE(message.find("and 4 more"), std::string::npos) << message;
}

TEST(SysrootOpen, AFifoIsRefusedWithoutWaitingOnIt) {
  TempDir dir;
  const std::string fifo = dir.path() + "/dump.tar.gz";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto root = open_sysroot(fifo);  // would block forever if it were opened for reading
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.error().describe().find("neither a directory nor a dump archive"),
            std::string::npos)
      << root.error().describe();
}

TEST(SysrootOpen, AMissingPathIsAnErrorWithItsErrno) {
  auto root = open_sysroot("/nonexistent/kdrift/root");
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.error().code, ENOENT);
  EXPECT_NE(root.error().describe().find("/nonexistent/kdrift/root"), std::string::npos);
}

TEST(SubtreeBackend, ErrorsNameThePathAsAskedFor) {
  auto bytes = make_tar_gz(kLscpuShaped);
  ASSERT_TRUE(bytes.ok());
  auto tree = ArchiveTree::read_bytes(*bytes);
  ASSERT_TRUE(tree.ok());
  const SubtreeBackend backend(std::make_shared<ArchiveBackend>(std::move(*tree)), "/arm64-x");
  auto missing = backend.read("/proc/meminfo", 1024, ReadExtent::kWhole);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().context, "/proc/meminfo");
  EXPECT_EQ(missing.error().code, ENOENT);
  auto top = backend.list("/");
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->size(), 2u);
}

}  // namespace
}  // namespace kdrift
