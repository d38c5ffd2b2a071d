// dump-sysroot on the live host: the archive replays to the same snapshot as the live capture.

#include <gtest/gtest.h>
#include <unistd.h>

#include "collect/capture.h"
#include "collect/sysroot_dump.h"
#include "support/fixtures.h"
#include "support/snapshot_compare.h"
#include "util/atomic_file.h"
#include "util/tarball.h"

namespace kdrift {
namespace {

TEST(LiveDump, ReplayEqualsLiveCaptureForEveryFileDerivedField) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: unprivileged reads differ (dmesg, config)";
  auto dump = dump_sysroot("/");
  ASSERT_TRUE(dump.ok()) << dump.error().describe();
  testing::TempDir work;
  ASSERT_TRUE(write_file_atomically(work.path() + "/live.tar.gz", dump->tar_gz).ok());
  ASSERT_TRUE(extract_tar_gz(work.path() + "/live.tar.gz", work.path() + "/root").ok());
  const Json replayed = capture_snapshot(SysRoot(work.path() + "/root"));
  EXPECT_EQ(testing::file_derived(replayed).dump(1), testing::file_derived(dump->snapshot).dump(1));
  EXPECT_EQ(replayed["capture"]["live"], false);
  EXPECT_EQ(dump->snapshot["capture"]["live"], true);
}

}  // namespace
}  // namespace kdrift
