#include "collect/sysroot_dump.h"

#include <gtest/gtest.h>

#include "collect/capture.h"
#include "support/fixtures.h"
#include "support/snapshot_compare.h"
#include "unit/collect/storage_tree.h"
#include "util/archive_backend.h"
#include "util/atomic_file.h"

namespace kdrift {
namespace {

using testing::file_derived;
using testing::TempDir;

SysRoot archive_root(const std::string& bytes) {
  auto tree = ArchiveTree::read_bytes(bytes);
  if (!tree) throw std::runtime_error(tree.error().describe());
  return SysRoot("dump.tar.gz", std::make_shared<ArchiveBackend>(std::move(*tree)));
}

// Dumps source, then captures from the archive as --root reads it (in memory) and unpacked into
// a directory: both must equal the capture made while dumping.
void expect_round_trip(const SysRoot& source) {
  auto dump = dump_sysroot(source);
  ASSERT_TRUE(dump.ok()) << dump.error().describe();
  const std::string expected = file_derived(dump->snapshot).dump(1);
  EXPECT_EQ(file_derived(capture_snapshot(archive_root(dump->tar_gz))).dump(1), expected);
  TempDir work;
  const std::string archive = work.path() + "/dump.tar.gz";
  ASSERT_TRUE(write_file_atomically(archive, dump->tar_gz).ok());
  testing::unpack_archive(archive, work.path() + "/root");
  EXPECT_EQ(file_derived(capture_snapshot(SysRoot(work.path() + "/root"))).dump(1), expected);
}

TEST(SysrootDump, HandBuiltTreeWithSymlinksAndErrorsRoundTrips) {
  TempDir tree;
  tree.write("proc/sys/kernel/osrelease", "6.1.0-50-amd64\n");
  tree.write("proc/cmdline", "intel_iommu=on iommu.strict=1 quiet\n");
  tree.write("boot/config-6.1.0-50-amd64", "CONFIG_INTEL_IOMMU=y\n# CONFIG_X is not set\n");
  tree.write("sys/devices/pci0000:00/0000:00:03.0/nvme/nvme0/nvme0n1/queue/io_poll", "0\n");
  tree.symlink("sys/block/nvme0n1", "../devices/pci0000:00/0000:00:03.0/nvme/nvme0/nvme0n1");
  tree.symlink("sys/block/loop", "loop");  // a symlink loop must survive the trip as an error
  expect_round_trip(SysRoot(tree.path()));
}

TEST(SysrootDump, EveryCommittedFixtureRoundTrips) {
  const auto names = testing::fixture_sysroot_names();
  if (names.empty()) GTEST_SKIP() << "no fixtures in tests/fixtures/sysroots";
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    expect_round_trip(testing::fixture_sysroot(name));
  }
}

// Both ways of serving a dump give one snapshot, PCI facts included: libpci decodes the config
// bytes SysRoot read and opens nothing below either root.
TEST(SysrootDump, ArchiveAndItsUnpackedDirectoryCaptureTheSame) {
  const auto names = testing::fixture_sysroot_names();
  if (names.empty()) GTEST_SKIP() << "no fixtures in tests/fixtures/sysroots";
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    TempDir unpacked;
    testing::unpack_archive(testing::fixture_archive(name), unpacked.path());
    const Json from_archive = capture_snapshot(testing::fixture_sysroot(name));
    const Json from_directory = capture_snapshot(SysRoot(unpacked.path()));
    EXPECT_FALSE(from_archive["pci"]["devices"].empty());
    EXPECT_EQ(from_archive["pci"].dump(1), from_directory["pci"].dump(1));
    EXPECT_EQ(file_derived(from_archive).dump(1), file_derived(from_directory).dump(1));
  }
}

TEST(SysrootDump, ArchiveCarriesManifestAndSnapshot) {
  TempDir tree;
  tree.write("proc/cmdline", "quiet\n");
  auto dump = dump_sysroot(SysRoot(tree.path()));
  ASSERT_TRUE(dump.ok());
  const SysRoot replayed = archive_root(dump->tar_gz);
  EXPECT_TRUE(replayed.read("/kdrift-sysroot.json").ok());
  auto snapshot = replayed.read("/kdrift-snapshot.json");
  ASSERT_TRUE(snapshot.ok());
  EXPECT_TRUE(parse_snapshot(*snapshot, "kdrift-snapshot.json").ok());
  EXPECT_EQ(*replayed.read("/proc/cmdline"), "quiet\n");
}

// The NVMe queue split is read from debugfs where it is mounted: a dump carries those files, so
// the replay gives the split from the same source.
TEST(SysrootDump, CarriesDebugfsHardwareQueueTypes) {
  TempDir tree;
  const testing::StorageTree sys(tree);
  const std::string controller = sys.pci_function("0000:01:00.0", "") + "/nvme/nvme0";
  tree.write(controller + "/transport", "pcie\n");
  sys.symlink("sys/class/nvme/nvme0", controller);
  sys.disk(controller, "", "nvme0n1");
  tree.write("sys/kernel/debug/block/nvme0n1/hctx0/type", "default\n");
  tree.write("sys/kernel/debug/block/nvme0n1/hctx1/type", "poll\n");
  expect_round_trip(SysRoot(tree.path()));
  auto dump = dump_sysroot(SysRoot(tree.path()));
  ASSERT_TRUE(dump.ok());
  const SysRoot replayed = archive_root(dump->tar_gz);
  EXPECT_EQ(replayed.read("/sys/kernel/debug/block/nvme0n1/hctx1/type").value_or(""), "poll\n");
  const Json controller_facts = capture_snapshot(replayed)["nvme"]["controllers"]["nvme0"];
  EXPECT_EQ(controller_facts["queues_source"], "debugfs");
  EXPECT_EQ(controller_facts["queues"], (Json{{"default", 1}, {"read", 0}, {"poll", 1}}));
}

}  // namespace
}  // namespace kdrift
