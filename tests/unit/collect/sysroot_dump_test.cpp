#include "collect/sysroot_dump.h"

#include <gtest/gtest.h>

#include "collect/capture.h"
#include "support/fixtures.h"
#include "support/snapshot_compare.h"
#include "util/atomic_file.h"
#include "util/tarball.h"

namespace kdrift {
namespace {

using testing::file_derived;
using testing::TempDir;

// Dumps root_dir, unpacks the archive, captures from it: must equal the capture made while dumping.
void expect_round_trip(const std::string& root_dir) {
  auto dump = dump_sysroot(root_dir);
  ASSERT_TRUE(dump.ok()) << dump.error().describe();
  TempDir work;
  const std::string archive = work.path() + "/dump.tar.gz";
  ASSERT_TRUE(write_file_atomically(archive, dump->tar_gz).ok());
  const std::string unpacked = work.path() + "/root";
  ASSERT_TRUE(extract_tar_gz(archive, unpacked).ok());
  const Json replayed = capture_snapshot(SysRoot(unpacked));
  EXPECT_EQ(file_derived(replayed).dump(1), file_derived(dump->snapshot).dump(1));
}

TEST(SysrootDump, HandBuiltTreeWithSymlinksAndErrorsRoundTrips) {
  TempDir tree;
  tree.write("proc/sys/kernel/osrelease", "6.1.0-50-amd64\n");
  tree.write("proc/cmdline", "intel_iommu=on iommu.strict=1 quiet\n");
  tree.write("boot/config-6.1.0-50-amd64", "CONFIG_INTEL_IOMMU=y\n# CONFIG_X is not set\n");
  tree.write("sys/devices/pci0000:00/0000:00:03.0/nvme/nvme0/nvme0n1/queue/io_poll", "0\n");
  tree.symlink("sys/block/nvme0n1", "../devices/pci0000:00/0000:00:03.0/nvme/nvme0/nvme0n1");
  tree.symlink("sys/block/loop", "loop");  // a symlink loop must survive the trip as an error
  expect_round_trip(tree.path());
}

TEST(SysrootDump, EveryCommittedFixtureRoundTrips) {
  const auto names = testing::fixture_sysroot_names();
  if (names.empty()) GTEST_SKIP() << "no fixtures in tests/fixtures/sysroots";
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    expect_round_trip(testing::fixture_sysroot(name));
  }
}

TEST(SysrootDump, ArchiveCarriesManifestAndSnapshot) {
  TempDir tree;
  tree.write("proc/cmdline", "quiet\n");
  auto dump = dump_sysroot(tree.path());
  ASSERT_TRUE(dump.ok());
  TempDir work;
  ASSERT_TRUE(write_file_atomically(work.path() + "/d.tar.gz", dump->tar_gz).ok());
  ASSERT_TRUE(extract_tar_gz(work.path() + "/d.tar.gz", work.path() + "/x").ok());
  SysRoot unpacked(work.path() + "/x");
  EXPECT_TRUE(unpacked.read("/kdrift-sysroot.json").ok());
  auto snapshot = unpacked.read("/kdrift-snapshot.json");
  ASSERT_TRUE(snapshot.ok());
  EXPECT_TRUE(parse_snapshot(*snapshot, "kdrift-snapshot.json").ok());
  EXPECT_EQ(*unpacked.read("/proc/cmdline"), "quiet\n");
}

}  // namespace
}  // namespace kdrift
