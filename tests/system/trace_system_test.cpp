// The block-layer trace against devices this test creates: what the BPF programs counted must
// be what the device's own counters say for the same span, on a blk-mq device (loop) and on a
// bio-based one (zram). Needs root; each test skips with the reason when it cannot set up.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

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

uint64_t read_write(const Json& by_direction, const char* field) {
  return by_direction["read"][field].get<uint64_t>() + by_direction["write"][field].get<uint64_t>();
}

uint64_t distance(uint64_t a, uint64_t b) {
  return a > b ? a - b : b - a;
}

// The requests a trace counted completing: those whose completion ran rq_complete and those
// whose completion ran no program, found when their request was issued again or when the
// device was idle at the end (see docs/usage.md, "no program").
uint64_t completed_or_lost(const Json& by_direction, const char* completed, const char* lost) {
  return read_write(by_direction, completed) + read_write(by_direction, lost);
}

// Every job traced, and the programs' completions, sectors and merges equal the diskstats delta
// exactly: the only events allowed to differ are program runs the kernel says it skipped.
void check_request_reconciliation(const Json& probe) {
  for (const auto& job : probe["jobs"]) {
    ASSERT_EQ(job["status"], "ok") << job.dump(1);
    ASSERT_TRUE(job.contains("trace")) << job.dump(1);
    const Json& block = job["trace"]["block"];
    const Json& disk = job["trace"]["diskstats"];
    const Json& by_direction = block["by_direction"];
    EXPECT_TRUE(block["request_based"].get<bool>());
    // The probe starts each job with nothing in flight and drains it before the last diskstats
    // read, so every request the programs held at the end was settled.
    EXPECT_EQ(block["unmatched_completions"], 0) << job.dump(1);
    EXPECT_EQ(block["in_flight_at_end"], 0) << job.dump(1);
    const uint64_t missed = block["missed_events"].get<uint64_t>();
    const uint64_t ios = completed_or_lost(by_direction, "requests_completed", "requests_lost");
    EXPECT_LE(distance(ios, disk["ios"]), missed) << job.dump(1);
    // At most 64 KiB, 128 sectors, per request a skipped run could spoil.
    const uint64_t bytes = completed_or_lost(by_direction, "bytes_completed", "bytes_lost");
    EXPECT_LE(distance(bytes / 512, disk["sectors"]), 128 * missed) << job.dump(1);
    EXPECT_LE(distance(block["merges"], disk["merges"]), missed) << job.dump(1);
    const uint64_t lost = read_write(by_direction, "requests_lost");
    if (lost > 0) {
      std::printf(
          "%s: %llu of %llu completions ran no program (%llu found at a re-issue, %llu at "
          "the end)\n",
          job["name"].get<std::string>().c_str(), static_cast<unsigned long long>(lost),
          static_cast<unsigned long long>(ios),
          static_cast<unsigned long long>(block["lost_completions"].get<uint64_t>()),
          static_cast<unsigned long long>(block["lost_completions_at_end"].get<uint64_t>()));
    }
    EXPECT_GT(block["device_latency_ns"]["percentile"]["50.000000"].get<uint64_t>(), 0u);
    EXPECT_EQ(block["device_latency_ns"]["count"], block["requests_completed"]);
    EXPECT_GT(job["trace"]["programs"]["block_rq_complete"]["run_count"].get<uint64_t>(), 0u)
        << job["trace"]["programs"].dump(1);
  }
}

TEST(TraceSystem, LoopDeviceRequestsMatchDiskstats) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = LoopDevice::create_sparse(dir.path(), "256M", &reason);
  if (!loop) GTEST_SKIP() << reason;
  for (const std::string rw : {"randread", "randwrite"}) {
    const Json probe = probe_json("--target " + loop->path() + " --allow-write --rw " + rw +
                                  " --engine io_uring,libaio,psync --bs 4k,64k --iodepth 8"
                                  " --runtime 300ms --ramp 100ms --no-capabilities");
    ASSERT_EQ(probe["jobs"].size(), 6u);
    check_request_reconciliation(probe);
  }
}

TEST(TraceSystem, ZramBiosMatchDiskstatsAndRequestsAreNamedMissing) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("128M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  const Json probe = probe_json("--target " + zram->path() +
                                " --allow-write --rw randwrite --engine io_uring,libaio"
                                " --bs 4k --iodepth 8 --runtime 300ms --ramp 100ms");
  for (const auto& job : probe["jobs"]) {
    ASSERT_EQ(job["status"], "ok") << job.dump(1);
    const Json& block = job["trace"]["block"];
    EXPECT_FALSE(block["request_based"].get<bool>());
    EXPECT_EQ(block["bios_queued"], job["trace"]["diskstats"]["ios"]) << job.dump(1);
    EXPECT_EQ(block["bio_bytes"].get<uint64_t>() / 512, job["trace"]["diskstats"]["sectors"]);
    EXPECT_FALSE(block.contains("requests_completed"));
    EXPECT_NE(block["unavailable"]["requests"].get<std::string>().find("bio-based"),
              std::string::npos);
    // zram cannot take an I/O without blocking: io_uring hands every one to an io-wq worker.
    // Only the probe's own rings count, so libaio leaves io_uring at zero.
    const Json& uring = job["trace"]["io_uring"];
    if (job["engine"] == "io_uring") {
      EXPECT_GE(uring["submissions"].get<uint64_t>(), job["write"]["ios"].get<uint64_t>());
      EXPECT_EQ(uring["completions"], uring["submissions"]);
      EXPECT_GT(uring["punts_per_io"].get<double>(), 0.5) << uring.dump();
    } else {
      EXPECT_EQ(uring["submissions"], 0) << uring.dump();
    }
    EXPECT_TRUE(job["trace"]["programs"]["map"].is_object());
    EXPECT_EQ(job["trace"]["unavailable"]["nvme"],
              "nvme trace: no NVMe disk under the target: No such device");
  }
}

// kdrift trace around someone else's workload: dd reading 2000 blocks with O_DIRECT, started once
// the trace holds its BPF links. A fixed head start was not enough: beside the parallel system
// tier, loading and verifying the programs took longer than 0.7 s, and the trace saw 1,867 and
// then none of dd's reads.
TEST(TraceSystem, TraceCommandCountsAnotherProgramsIo) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = LoopDevice::create_sparse(dir.path(), "64M", &reason);
  if (!loop) GTEST_SKIP() << reason;
  const std::string out = dir.path() + "/trace.json";
  const auto run = run_command(
      testing::kdrift_binary() + " trace --target " + loop->path() +
          " --duration 5s --format json > " + out + " & k=$!; for i in $(seq 400); do ls -l " +
          "/proc/$k/fd 2>/dev/null | grep -q bpf_link && break; sleep 0.05; done; sleep 0.2; " +
          "dd if=" + loop->path() + " of=/dev/null bs=4k count=2000 iflag=direct 2>/dev/null; " +
          "wait $k && cat " + out,
      true);
  ASSERT_EQ(run.status, 0) << run.out;
  const Json traced = Json::parse(run.out);
  const Json& block = traced["trace"]["block"];
  EXPECT_EQ(traced["device"], loop->name());
  const Json& read = block["by_direction"]["read"];
  EXPECT_GE(read["requests_completed"].get<uint64_t>() + read["requests_lost"].get<uint64_t>(),
            2000u)
      << block.dump(1);
  EXPECT_EQ(completed_or_lost(block["by_direction"], "requests_completed", "requests_lost"),
            traced["trace"]["diskstats"]["ios"]);
  EXPECT_EQ(run_kdrift("trace --target " + loop->path() + " --duration soon").status, 2);
  EXPECT_EQ(run_kdrift("trace --target /nonexistent --duration 1s").status, 2);
}

// Seed 001: sequential O_DIRECT 4K reads one at a time reach the device as 4K requests; a
// readahead window of 32 submitted together is merged into larger ones.
TEST(TraceSystem, ReadaheadWindowMergesRequests) {
  REQUIRE_ROOT();
  testing::TempDir dir;
  std::string reason;
  auto loop = LoopDevice::create_sparse(dir.path(), "256M", &reason);
  if (!loop) GTEST_SKIP() << reason;
  const Json probe = probe_json("--profile readahead --target " + loop->path() +
                                " --runtime 300ms --ramp 100ms --no-capabilities");
  const Json& single = job_named(probe, "io_uring read 4k qd1")["trace"]["block"];
  const Json& window = job_named(probe, "io_uring read 4k qd32 window32")["trace"]["block"];
  ASSERT_TRUE(single.is_object() && window.is_object()) << probe.dump(1);
  std::printf(
      "depth 1: merge ratio %.3f, average request %.0f bytes; window 32: merge ratio "
      "%.3f, average request %.0f bytes\n",
      single["merge_ratio"].get<double>(), single["avg_request_bytes"].get<double>(),
      window["merge_ratio"].get<double>(), window["avg_request_bytes"].get<double>());
  EXPECT_LT(single["merge_ratio"].get<double>(), 0.05);
  EXPECT_GT(window["merge_ratio"].get<double>(), single["merge_ratio"].get<double>());
  EXPECT_GT(window["avg_request_bytes"].get<double>(), single["avg_request_bytes"].get<double>());
}

// Without the capabilities BPF needs, the probe still measures and says why there is no trace.
TEST(TraceSystem, WithoutBpfCapabilitiesTheProbeRunsAndSaysWhy) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = ZramDevice::create("64M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  const auto run = run_command(
      "setpriv --bounding-set=-bpf,-perfmon,-sys_admin --inh-caps=-bpf,-perfmon,-sys_admin " +
          std::string(testing::kdrift_binary()) + " probe --format json --target " + zram->path() +
          " --engine libaio --rw randread --runtime 200ms --ramp 0s"
          " --no-capabilities",
      true);
  ASSERT_EQ(run.status, 0) << run.out;
  const Json job = Json::parse(run.out)["probe"]["jobs"][0];
  EXPECT_EQ(job["status"], "ok");
  EXPECT_FALSE(job.contains("trace"));
  EXPECT_NE(job["unavailable"]["trace"].get<std::string>().find("CAP_BPF"), std::string::npos)
      << job.dump(1);
}

}  // namespace
}  // namespace kdrift
