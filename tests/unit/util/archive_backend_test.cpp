#include "util/archive_backend.h"

#include <gtest/gtest.h>

#include "util/sysroot.h"
#include "util/tarball.h"

namespace kdrift {
namespace {

using Member = TarMember;

SysRoot archive_root(const std::vector<TarMember>& members) {
  auto bytes = make_tar_gz(members);
  if (!bytes) throw std::runtime_error(bytes.error().describe());
  auto tree = ArchiveTree::read_bytes(*bytes);
  if (!tree) throw std::runtime_error(tree.error().describe());
  return SysRoot("/dumps/x.tar.gz", std::make_shared<ArchiveBackend>(std::move(*tree)));
}

TEST(ArchiveBackend, SymlinksResolveInsideTheTree) {
  const SysRoot root = archive_root(
      {{"sys/devices/pci0000:00/0000:00:01.0/block/vda/size", Member::Type::kFile, "8\n"},
       {"sys/block/vda", Member::Type::kSymlink, "../devices/pci0000:00/0000:00:01.0/block/vda"},
       {"boot/config-1", Member::Type::kFile, "CONFIG_X=y\n"},
       {"boot/config", Member::Type::kSymlink, "/boot/config-1"},
       {"etc/hostname", Member::Type::kFile, "from the dump\n"},
       {"abs", Member::Type::kSymlink, "/etc/hostname"},
       {"up", Member::Type::kSymlink, "../../../../../../etc/hostname"}});
  EXPECT_EQ(*root.read_value("/sys/block/vda/size"), "8");
  EXPECT_EQ(*root.resolve("/sys/block/vda"), "/sys/devices/pci0000:00/0000:00:01.0/block/vda");
  EXPECT_EQ(*root.read("/boot/config"), "CONFIG_X=y\n");
  // Absolute targets and ".." beyond the top both end inside the tree, never on this host.
  EXPECT_EQ(*root.read("/abs"), "from the dump\n");
  EXPECT_EQ(*root.read("/up"), "from the dump\n");
  EXPECT_FALSE(root.live());
  EXPECT_EQ(root.root(), "/dumps/x.tar.gz");
}

TEST(ArchiveBackend, AbsoluteSymlinkToAHostFileFindsNothing) {
  const SysRoot root = archive_root({{"escape", Member::Type::kSymlink, "/etc/passwd"}});
  auto escaped = root.read("/escape");
  ASSERT_FALSE(escaped.ok());
  EXPECT_EQ(escaped.error().code, ENOENT);
}

TEST(ArchiveBackend, SymlinkToDotIsConfinedAndLoopsEnd) {
  const SysRoot root = archive_root({{"proc/cmdline", Member::Type::kFile, "quiet\n"},
                                     {"here", Member::Type::kSymlink, "."},
                                     {"top", Member::Type::kSymlink, "/"},
                                     {"a", Member::Type::kSymlink, "b"},
                                     {"b", Member::Type::kSymlink, "a"}});
  EXPECT_EQ(*root.read("/here/here/proc/cmdline"), "quiet\n");
  EXPECT_EQ(*root.read("/top/top/proc/cmdline"), "quiet\n");
  EXPECT_EQ(*root.resolve("/top"), "/");
  EXPECT_EQ(root.read("/a/x").error().code, ELOOP);
}

TEST(ArchiveBackend, ListsKindsAndAnswersAsADirectoryWould) {
  const SysRoot root = archive_root({{"d/f", Member::Type::kFile, "12345"},
                                     {"d/l", Member::Type::kSymlink, "f"},
                                     {"d/sub", Member::Type::kDirectory, {}}});
  auto entries = root.list_entries("/d");
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].kind, EntryKind::kFile);
  EXPECT_EQ((*entries)[1].kind, EntryKind::kSymlink);
  EXPECT_EQ((*entries)[2].kind, EntryKind::kDirectory);
  EXPECT_EQ(root.read("/d/sub").error().code, EINVAL);
  EXPECT_EQ(root.read("/d/f", 4).error().code, EFBIG);
  EXPECT_EQ(*root.read_head("/d/f", 3), "123");
  EXPECT_EQ(root.list("/d/f").error().code, ENOTDIR);
  EXPECT_EQ(root.read("/d/f/x").error().code, ENOTDIR);
  EXPECT_EQ(*root.kind("/d/l"), EntryKind::kSymlink);
}

TEST(ArchiveBackend, HasNoHostPath) {
  const SysRoot root = archive_root({{"sys/bus/pci/devices/x", Member::Type::kFile, "1"}});
  EXPECT_FALSE(root.host_path("/sys/bus/pci").ok());
}

}  // namespace
}  // namespace kdrift
