// Which loop devices and files `kdrift probe --allow-write` writes, decided on the descriptor it
// opened: a blank device yes; a read-only device, a file behind a loop device, no. Needs root;
// each test skips with the reason when it cannot set up.

#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "iobench/target.h"
#include "support/fixtures.h"
#include "support/probe_runs.h"
#include "support/system.h"

namespace kdrift {
namespace {

using testing::LoopDevice;
using testing::probe_json;
using testing::run_command;
using testing::run_kdrift;
using testing::ZramDevice;

const std::string kWrites =
    " --engine psync --rw randwrite --bs 4k --iodepth 1 --runtime 100ms --ramp 0s"
    " --no-capabilities --no-trace";

std::string refusals_of(const Json& probe) {
  std::string all;
  for (const auto& refusal : probe["target"]["write_refusals"])
    all += refusal.get<std::string>() + "\n";
  return all;
}

// A read-only mount (noload: no journal replay), so the image changes only if kdrift writes it.
class ReadOnlyMount {
 public:
  ReadOnlyMount(const std::string& device, std::string point) : point_(std::move(point)) {
    std::filesystem::create_directory(point_);
    mounted_ = run_command("mount -o ro,noload " + device + " " + point_).status == 0;
  }
  ReadOnlyMount(const ReadOnlyMount&) = delete;
  ReadOnlyMount& operator=(const ReadOnlyMount&) = delete;
  ~ReadOnlyMount() {
    if (mounted_) run_command("umount " + point_);
  }
  bool mounted() const { return mounted_; }

 private:
  std::string point_;
  bool mounted_ = false;
};

// Pages of fd's block device in the page cache, as mincore sees them through a mapping of it.
size_t cached_pages(int fd) {
  uint64_t bytes = 0;
  if (::ioctl(fd, BLKGETSIZE64, &bytes) != 0) return SIZE_MAX;
  void* mapped = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) return SIZE_MAX;
  const long page = ::sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> resident((bytes + static_cast<uint64_t>(page) - 1) / page);
  const int status = ::mincore(mapped, bytes, resident.data());
  ::munmap(mapped, bytes);
  if (status != 0) return SIZE_MAX;
  return static_cast<size_t>(std::count_if(resident.begin(), resident.end(),
                                           [](unsigned char entry) { return (entry & 1) != 0; }));
}

// libblkid's probe reads through the page cache (hundreds of pages); on a blank device they are
// dropped again, or every O_DIRECT read of the probe would look them up first.
TEST(ProbeTarget, TheSignatureProbeLeavesNoPageCacheOnABlankDevice) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("64M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  SysRoot root;
  auto target = Target::open(zram->path(), TargetOptions{}, root);
  ASSERT_TRUE(target) << target.error().describe();
  EXPECT_EQ(cached_pages(target->fd()), 0u);
}

TEST(ProbeTarget, BlankLoopDeviceIsWrittenWithAllowWrite) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = LoopDevice::create_sparse(dir.path(), "64M", &reason);
  if (!loop) GTEST_SKIP() << reason;
  const Json probe = probe_json("--target " + loop->path() + " --allow-write" + kWrites);
  EXPECT_TRUE(probe["target"]["writable"].get<bool>()) << refusals_of(probe);
  EXPECT_EQ(probe["target"]["device"]["name"], loop->name());
  const Json& job = probe["jobs"][0];
  ASSERT_EQ(job["status"], "ok") << job.dump(1);
  EXPECT_GT(job["write"]["ios"].get<uint64_t>(), 0u);
}

TEST(ProbeTarget, ReadOnlyLoopDeviceIsNotWritable) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  const std::string backing = dir.path() + "/backing";
  ASSERT_EQ(run_command("truncate -s 64M " + backing).status, 0);
  std::string reason;
  auto loop = LoopDevice::create(backing, &reason, true);
  if (!loop) GTEST_SKIP() << reason;
  const Json probe = probe_json("--target " + loop->path() + " --allow-write" + kWrites);
  EXPECT_FALSE(probe["target"]["writable"].get<bool>());
  EXPECT_NE(refusals_of(probe).find(loop->name() + " is a read-only device (BLKROGET)"),
            std::string::npos)
      << refusals_of(probe);
  EXPECT_EQ(probe["jobs"][0]["status"], "skipped") << probe["jobs"][0].dump(1);
}

// The image behind a loop device, mounted or not, is that device's data: writing the file
// rewrites the device under its users, so --allow-write stops with the loop device named.
void expect_backing_file_refused(bool mount) {
  testing::TempDir dir;
  const std::string image = dir.path() + "/victim.img";
  std::string reason;
  if (!testing::make_ext4_image(image, "64M", &reason)) GTEST_SKIP() << reason;
  auto loop = LoopDevice::create(image, &reason);
  if (!loop) GTEST_SKIP() << reason;
  std::optional<ReadOnlyMount> mounted;
  if (mount) {
    mounted.emplace(loop->path(), dir.path() + "/mnt");
    if (!mounted->mounted()) GTEST_SKIP() << "cannot mount ext4 here";
  }
  const std::string before = testing::sha256_of(image);
  const auto run = run_kdrift("probe --format json --target " + image + " --allow-write" + kWrites);
  EXPECT_EQ(run.status, 2) << run.out;
  const std::string named = image + " backs " + loop->name() +
                            (mount ? ", mounted on " + dir.path() + "/mnt" : "") + ": ";
  EXPECT_NE(run.out.find(image + ": refused for writes: " + named), std::string::npos) << run.out;
  EXPECT_EQ(testing::sha256_of(image), before);
}

TEST(ProbeTarget, FileBackingAMountedLoopDeviceIsRefused) {
  REQUIRE_ROOT();
  expect_backing_file_refused(true);
}

TEST(ProbeTarget, FileBackingAnUnmountedLoopDeviceIsRefused) {
  REQUIRE_ROOT();
  expect_backing_file_refused(false);
}

TEST(ProbeTarget, FileBackingALoopDeviceIsReadWithoutAllowWrite) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = LoopDevice::create_sparse(dir.path(), "64M", &reason);
  if (!loop) GTEST_SKIP() << reason;
  const std::string backing = dir.path() + "/backing";
  const Json probe = probe_json("--target " + backing +
                                " --engine psync --rw randread --runtime 100ms --ramp 0s"
                                " --no-capabilities --no-trace");
  EXPECT_EQ(probe["jobs"][0]["status"], "ok") << probe["jobs"][0].dump(1);
  EXPECT_NE(refusals_of(probe).find(backing + " backs " + loop->name()), std::string::npos)
      << refusals_of(probe);
}

}  // namespace
}  // namespace kdrift
