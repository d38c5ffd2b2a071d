// The probe against real devices this test creates: zram (bio-based), loop (blk-mq) and a file
// in a temporary directory. Needs root; each test skips with the reason when it cannot set up.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/probe_runs.h"
#include "support/system.h"

namespace kdrift {
namespace {

using testing::job_named;
using testing::LoopDevice;
using testing::probe_json;
using testing::run_command;
using testing::run_kdrift;
using testing::ZramDevice;

// A loop device over a fresh 64 MiB ext4 image in dir.
std::optional<LoopDevice> ext4_loop_device(const testing::TempDir& dir, std::string* reason) {
  const std::string backing = dir.path() + "/ext4.img";
  if (!testing::make_ext4_image(backing, "64M", reason)) return std::nullopt;
  return LoopDevice::create(backing, reason);
}

// Each job completed, and the device's own counters account for every I/O it completed (a
// merged bio counts as a merge).
void check_counts(const Json& probe, const std::string& rw, const std::string& name) {
  const std::string done = rw == "randread" ? "reads" : "writes";
  const std::string merged = rw == "randread" ? "read_merges" : "write_merges";
  for (const auto& job : probe["jobs"]) {
    ASSERT_EQ(job["status"], "ok") << job.dump(1);
    const Json& stats = rw == "randread" ? job["read"] : job["write"];
    EXPECT_GT(stats["ios"].get<uint64_t>(), 0u) << job["name"];
    EXPECT_GT(stats["lat_ns"]["percentile"]["50.000000"].get<uint64_t>(), 0u) << job["name"];
    const Json& disk = job["diskstats"];
    EXPECT_EQ(disk["device"], name);
    EXPECT_EQ(disk[done].get<uint64_t>() + disk[merged].get<uint64_t>(),
              disk["probe_ios"].get<uint64_t>())
        << job.dump(1);
    EXPECT_EQ(disk[rw == "randread" ? "writes" : "reads"], 0) << job.dump(1);
  }
}

// Every non-polled mode, sleeping and spinning, on a device only this test uses.
void check_every_mode(const std::string& device, const std::string& name) {
  for (const std::string rw : {"randread", "randwrite"}) {
    const Json probe = probe_json(
        "--target " + device + " --allow-write --rw " + rw +
        " --engine io_uring,io_uring+sqpoll,io_uring+fixedbufs+regfiles,libaio,psync,pvsync2"
        " --bs 4k --iodepth 8 --runtime 300ms --ramp 100ms");
    ASSERT_EQ(probe["jobs"].size(), 6u);
    check_counts(probe, rw, name);
    if (rw == "randread") {
      const Json& sqpoll = job_named(probe, "io_uring+sqpoll randread 4k qd8");
      EXPECT_TRUE(sqpoll["cpu"].contains("sqpoll_thread_s")) << sqpoll["cpu"].dump();
      EXPECT_EQ(job_named(probe, "psync randread 4k qd1")["iodepth"], 1);
    }
    // Spinning for completions changes how the probe waits, never what it counts.
    const Json spin = probe_json("--target " + device + " --allow-write --rw " + rw +
                                 " --engine io_uring,libaio --completion-wait spin --bs 4k"
                                 " --iodepth 8 --runtime 300ms --ramp 100ms");
    ASSERT_EQ(spin["jobs"].size(), 2u);
    EXPECT_EQ(spin["jobs"][0]["name"], "io_uring " + rw + " 4k qd8 spin");
    EXPECT_EQ(spin["jobs"][1]["completion_wait"], "spin");
    check_counts(spin, rw, name);
  }
}

TEST(ProbeSystem, EveryModeOnZramMatchesDiskstats) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("256M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  check_every_mode(zram->path(), zram->name());
}

TEST(ProbeSystem, EveryModeOnLoopMatchesDiskstats) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = LoopDevice::create_sparse(dir.path(), "256M", &reason);
  if (!loop) GTEST_SKIP() << reason;
  check_every_mode(loop->path(), loop->name());
}

TEST(ProbeSystem, IopollOnBioBasedAndLoopDevicesIsExplained) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("64M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  testing::TempDir dir;
  ASSERT_EQ(run_command("truncate -s 64M " + dir.path() + "/backing").status, 0);
  auto loop = LoopDevice::create(dir.path() + "/backing", &reason);
  if (!loop) GTEST_SKIP() << reason;
  for (const auto* device : {&zram->path(), &loop->path()}) {
    const Json probe = probe_json("--target " + *device +
                                  " --engine io_uring+iopoll --rw randread --runtime 200ms "
                                  "--ramp 0s --iodepth 4");
    // Polling a device without poll queues either fails with EOPNOTSUPP or quietly completes
    // by interrupt, I/O by I/O: on zram the first reads may complete inline and later ones fail.
    const Json& canary = probe["capabilities"]["io_uring+iopoll"];
    if (canary["status"] == "failed") {
      EXPECT_EQ(canary["errno"], EOPNOTSUPP) << canary.dump();
    } else {
      EXPECT_EQ(canary["status"], "ok-without-polling") << canary.dump();
    }
    const Json& job = probe["jobs"][0];
    if (job["status"] == "failed") {
      EXPECT_EQ(job["failure"]["errno"], EOPNOTSUPP) << job.dump(1);
    } else {
      EXPECT_TRUE(job.contains("polling_doubt")) << job.dump(1);
    }
    const std::string cause = canary["cause"].get<std::string>();
    const bool is_zram = device == &zram->path();
    EXPECT_NE(cause.find(is_zram ? "is bio-based" : "queue/io_poll = 0"), std::string::npos)
        << cause;
  }
}

TEST(ProbeSystem, FilesystemOnALoopDeviceIsNeverWritten) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = ext4_loop_device(dir, &reason);
  if (!loop) GTEST_SKIP() << reason;
  const std::string before = testing::sha256_of(loop->path());
  const Json probe = probe_json("--target " + loop->path() +
                                " --allow-write --engine libaio --rw randwrite --bs 4k "
                                "--iodepth 4 --runtime 100ms --ramp 0s");
  const Json& job = probe["jobs"][0];
  EXPECT_EQ(job["status"], "skipped");
  EXPECT_NE(job["reason"].get<std::string>().find("libblkid finds a ext4 signature"),
            std::string::npos)
      << job.dump();
  EXPECT_FALSE(probe["target"]["writable"].get<bool>());
  // Reads of the same device still run.
  const Json reads = probe_json("--target " + loop->path() +
                                " --allow-write --engine libaio --rw randread --runtime 100ms "
                                "--ramp 0s");
  EXPECT_EQ(reads["jobs"][0]["status"], "ok") << reads["jobs"][0].dump();
  EXPECT_EQ(testing::sha256_of(loop->path()), before);
}

TEST(ProbeSystem, MountedDeviceIsRefusedForWrites) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = ext4_loop_device(dir, &reason);
  if (!loop) GTEST_SKIP() << reason;
  const std::string mountpoint = dir.path() + "/mnt";
  std::filesystem::create_directory(mountpoint);
  if (run_command("mount " + loop->path() + " " + mountpoint).status != 0) {
    GTEST_SKIP() << "cannot mount ext4 here";
  }
  const std::string job = " --engine psync --rw randwrite --runtime 100ms --ramp 0s";
  // With --allow-write the kernel refuses the exclusive claim (EBUSY), and so does kdrift.
  const auto refused =
      run_kdrift("probe --format json --target " + loop->path() + " --allow-write" + job);
  // Without it the device is only read, and the description says why writes are refused.
  const Json probe = probe_json("--target " + loop->path() + job);
  run_command("umount " + mountpoint);
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_NE(refused.out.find(loop->path() + ": refused for writes: the kernel will not let kdrift "
                                            "claim the device (O_EXCL): it is mounted"),
            std::string::npos)
      << refused.out;
  EXPECT_NE(refused.out.find("Device or resource busy"), std::string::npos) << refused.out;
  std::string reasons;
  for (const auto& refusal : probe["target"]["write_refusals"])
    reasons += refusal.get<std::string>();
  EXPECT_NE(reasons.find(loop->name() + " is mounted on " + mountpoint), std::string::npos)
      << reasons;
  EXPECT_EQ(probe["jobs"][0]["status"], "skipped");
}

TEST(ProbeSystem, RawDeviceWithoutAllowWriteOnlyReads) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("64M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  const Json probe = probe_json("--target " + zram->path() +
                                " --engine io_uring --rw randwrite --runtime 100ms --ramp 0s"
                                " --no-capabilities");
  EXPECT_FALSE(probe.contains("capabilities"));
  EXPECT_EQ(probe["unavailable"]["capabilities"], "not checked (--no-capabilities)");
  const Json& job = probe["jobs"][0];
  EXPECT_EQ(job["status"], "skipped");
  EXPECT_NE(job["reason"].get<std::string>().find("--allow-write"), std::string::npos);
  const auto stat = run_command("cat /sys/block/" + zram->name() + "/stat", true);
  // Field 5 counts completed writes: none reached the device.
  std::istringstream fields(stat.out);
  uint64_t value = 0;
  for (int field = 0; field < 5; ++field)
    fields >> value;
  EXPECT_EQ(value, 0u) << stat.out;
}

TEST(ProbeSystem, DirectoryTargetLeavesNothingAndFioJsonIsFioShaped) {
  testing::TempDir dir;
  const auto run = run_kdrift("probe --format fio-json --target " + dir.path() +
                                  " --size 16m --engine io_uring --rw randwrite --iodepth 4 "
                                  "--runtime 200ms --ramp 0s",
                              true);
  ASSERT_EQ(run.status, 0) << run.out;
  const Json fio = Json::parse(run.out);
  ASSERT_EQ(fio["jobs"].size(), 1u);
  const Json& job = fio["jobs"][0];
  EXPECT_EQ(job["jobname"], "io_uring randwrite 4k qd4");
  EXPECT_GT(job["write"]["iops"].get<double>(), 0);
  EXPECT_TRUE(job["write"]["clat_ns"]["percentile"].contains("99.900000"));
  EXPECT_TRUE(job.contains("usr_cpu"));
  EXPECT_TRUE(job.contains("sys_cpu"));
  EXPECT_TRUE(fio["disk_util"].is_array());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(ProbeSystem, CaptureCarriesTheProbeSection) {
  testing::TempDir dir;
  const auto run = run_kdrift("capture --probe quick --target " + dir.path(), true);
  ASSERT_EQ(run.status, 0) << run.out;
  auto snapshot = parse_snapshot(run.out, "capture");
  ASSERT_TRUE(snapshot.ok());
  EXPECT_TRUE((*snapshot).contains("kernel"));
  EXPECT_EQ((*snapshot)["probe"]["profile"]["name"], "quick");
  EXPECT_EQ((*snapshot)["probe"]["jobs"].size(), 5u);
  // Three rounds by default, each job's entry its median round.
  EXPECT_EQ((*snapshot)["probe"]["rounds"], 3);
  for (const auto& job : (*snapshot)["probe"]["jobs"]) {
    ASSERT_EQ(job["rounds"].size(), 3u) << job["name"];
    const auto round = job["round"].get<size_t>();
    ASSERT_TRUE(round >= 1 && round <= 3) << job.dump(1);
    const Json& chosen = job["rounds"][round - 1];
    const std::string direction = job.contains("read") ? "read" : "write";
    EXPECT_EQ(chosen[direction]["ios"], job[direction]["ios"]) << job["name"];
    std::vector<double> iops;
    for (const auto& each : job["rounds"])
      iops.push_back(each[direction]["iops"].get<double>());
    std::sort(iops.begin(), iops.end());
    EXPECT_EQ(job[direction]["iops"].get<double>(), iops[1]) << job["name"];
  }
}

TEST(ProbeSystem, LikeFioWritesEveryBlockOncePerPassWithStampedSectors) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("4M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  // 1024 blocks, written at depth 1 until the window closes: far more than one pass.
  const Json probe = probe_json("--target " + zram->path() +
                                " --allow-write --rw randwrite --engine psync --bs 4k"
                                " --runtime 300ms --ramp 0s --like-fio --rounds 2");
  ASSERT_EQ(probe["jobs"].size(), 1u);
  const Json& job = probe["jobs"][0];
  ASSERT_EQ(job["status"], "ok") << job.dump(1);
  EXPECT_EQ(job["name"], "psync randwrite 4k qd1 like-fio");
  EXPECT_EQ(job["like_fio"], true);
  EXPECT_EQ(job["rounds"].size(), 2u);
  ASSERT_GT(job["write"]["ios"].get<uint64_t>(), 1024u);
  // Every block was written (a random map leaves none out), and every sector carries its own
  // byte offset, as fio's scramble_buffers leaves it.
  const auto dump = run_command("od -A d -t u8 -v -w8 " + zram->path());
  ASSERT_EQ(dump.status, 0);
  std::istringstream lines(dump.out);
  uint64_t at = 0;
  uint64_t value = 0;
  uint64_t stamped = 0;
  // A sector is counted once: the one at offset 0 carries 0, which its zero words match too.
  uint64_t last_stamped = UINT64_MAX;
  while (lines >> at >> value) {
    // The time stamp sits at bytes 48-63 of a sector; the offset in one line's first word.
    const uint64_t within = at % 512;
    const uint64_t sector = at - within;
    if (within % 64 == 0 && sector == value && sector != last_stamped) {
      ++stamped;
      last_stamped = sector;
    }
  }
  EXPECT_EQ(stamped, (4u << 20) / 512) << "sectors carrying their own offset";
}

// fio reaps an SQPOLL ring by spinning on it in user space; --like-fio does the same, so the
// probe's user time is the whole run where sleeping in the kernel leaves it a few percent (the
// SQ thread's time is system time either way), and every I/O is still counted.
TEST(ProbeSystem, LikeFioReapsAnSqpollRingBySpinning) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("64M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  const std::string job = "--target " + zram->path() +
                          " --rw randread --engine io_uring+sqpoll --bs 4k --iodepth 8"
                          " --runtime 300ms --ramp 100ms";
  const Json sleeping = probe_json(job);
  const Json spinning = probe_json(job + " --like-fio");
  for (const Json* probe : {&sleeping, &spinning}) {
    ASSERT_EQ((*probe)["jobs"].size(), 1u);
    check_counts(*probe, "randread", zram->name());
  }
  const Json& sleep_cpu = sleeping["jobs"][0]["cpu"];
  const Json& spin_cpu = spinning["jobs"][0]["cpu"];
  EXPECT_TRUE(spin_cpu.contains("sqpoll_thread_s")) << spin_cpu.dump();
  EXPECT_GT(spin_cpu["user_s"].get<double>(), 3 * sleep_cpu["user_s"].get<double>())
      << spin_cpu.dump() << "\n"
      << sleep_cpu.dump();
}

TEST(ProbeSystem, UsageErrorsExitTwo) {
  EXPECT_EQ(run_kdrift("probe --engine spdk").status, 2);
  EXPECT_EQ(run_kdrift("probe --bs 3k7").status, 2);
  EXPECT_EQ(run_kdrift("probe --profile no-such-profile").status, 2);
  EXPECT_EQ(run_kdrift("probe --target /nonexistent").status, 2);
  EXPECT_EQ(run_kdrift("probe --cpus 0 --numa local").status, 2);
  EXPECT_EQ(run_kdrift("probe --rounds 0").status, 2);
  EXPECT_EQ(run_kdrift("capture --probe quick --rounds 101").status, 2);
  const auto listed = run_kdrift("probe --list-profiles");
  EXPECT_EQ(listed.status, 0);
  EXPECT_NE(listed.out.find("ydb-randwrite (40 jobs)"), std::string::npos) << listed.out;
}

}  // namespace
}  // namespace kdrift
