// dump-sysroot on the live host: the archive replays to the same snapshot as the live capture.

#include <gtest/gtest.h>
#include <unistd.h>

#include "collect/capture.h"
#include "collect/sysroot_dump.h"
#include "support/fixtures.h"
#include "support/snapshot_compare.h"
#include "util/archive_backend.h"
#include "util/atomic_file.h"

namespace kdrift {
namespace {

TEST(LiveDump, ReplayEqualsLiveCaptureForEveryFileDerivedField) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: unprivileged reads differ (dmesg, config)";
  auto dump = dump_sysroot(SysRoot("/"));
  ASSERT_TRUE(dump.ok()) << dump.error().describe();
  testing::TempDir work;
  const std::string archive = work.path() + "/live.tar.gz";
  ASSERT_TRUE(write_file_atomically(archive, dump->tar_gz).ok());
  auto tree = ArchiveTree::read_file(archive);
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  const Json in_memory =
      capture_snapshot(SysRoot(archive, std::make_shared<ArchiveBackend>(std::move(*tree))));
  testing::unpack_archive(archive, work.path() + "/root");
  const Json unpacked = capture_snapshot(SysRoot(work.path() + "/root"));
  const std::string expected = testing::file_derived(dump->snapshot).dump(1);
  EXPECT_EQ(testing::file_derived(in_memory).dump(1), expected);
  EXPECT_EQ(testing::file_derived(unpacked).dump(1), expected);
  EXPECT_EQ(in_memory["capture"]["live"], false);
  EXPECT_EQ(dump->snapshot["capture"]["live"], true);
}

}  // namespace
}  // namespace kdrift
