#include "iobench/job_accounting.h"

#include <gtest/gtest.h>

#include <set>

#include "iobench/recorder.h"

namespace kdrift {
namespace {

ProbeJob job_of(const char* engine, Pattern rw) {
  ProbeJob job;
  job.workload = "w";
  job.engine = *EngineMode::parse(engine);
  job.rw = rw;
  job.block_size = 4096;
  job.iodepth = 16;
  job.ramp = std::chrono::milliseconds(500);
  job.runtime = std::chrono::seconds(2);
  return job;
}

// Every key path of a document with the type of its value, as the byte-identity check compares
// snapshots.
std::set<std::string> shape(const Json& value, const std::string& path = "") {
  std::set<std::string> out;
  if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      out.merge(shape(item, path + "." + key));
  } else if (value.is_array() && !value.empty()) {
    out.merge(shape(value.front(), path + "[]"));
  } else {
    out.insert(path + ":" + value.type_name() +
               (value.is_number_unsigned()  ? "u"
                : value.is_number_integer() ? "i"
                                            : ""));
  }
  return out;
}

TEST(JobAccounting, TheJobAsAskedFor) {
  const Json job = JobResult(job_of("psync", Pattern::kRandRw)).to_json();
  EXPECT_EQ(job["name"], job_of("psync", Pattern::kRandRw).name());
  EXPECT_EQ(job["iodepth"], 1);  // psync has one I/O in flight
  EXPECT_EQ(job["rwmixread"], 50);
  EXPECT_EQ(job["ramp_s"], 0.5);
  EXPECT_TRUE(job["ramp_s"].is_number_float());
  EXPECT_EQ(
      shape(JobResult(job_of("io_uring", Pattern::kRandRead)).to_json()),
      (std::set<std::string>{".batch.complete_max:numberu", ".batch.complete_min:numberu",
                             ".batch.submit:numberu", ".bs:numberu", ".completion_wait:string",
                             ".engine:string", ".iodepth:numberu", ".name:string", ".ramp_s:number",
                             ".runtime_s:number", ".rw:string", ".workload:string"}));
}

TEST(JobAccounting, SamplesHaveAMedianOfTheMiddleTwo) {
  const auto samples = [](std::vector<uint64_t> counts) {
    return PerSecondIops::of_counts(counts).to_json();
  };
  EXPECT_EQ(samples({}), Json({{"samples", Json::array()}}));
  EXPECT_EQ(samples({30, 10, 20}),
            Json({{"min", 10}, {"median", 20.0}, {"max", 30}, {"samples", {30, 10, 20}}}));
  EXPECT_TRUE(samples({30, 10, 20})["min"].is_number_unsigned());
  EXPECT_EQ(samples({4, 1, 2, 3})["median"], 2.5);
}

JobSample sample_over(uint64_t wall_ns) {
  JobSample sample;
  sample.usage_start.ru_utime = {1, 0};
  sample.usage_end.ru_utime = {1, 500000};
  sample.usage_start.ru_stime = {2, 0};
  sample.usage_end.ru_stime = {2, 250000};
  sample.usage_start.ru_nvcsw = 10;
  sample.usage_end.ru_nvcsw = 15;
  sample.usage_end.ru_nivcsw = 3;
  sample.submitter_start.ru_utime = {0, 250000};
  sample.submitter_end.ru_utime = {0, 750000};
  sample.submitter_end.ru_stime = {0, 250000};
  sample.window_start_ns = kNanosecondsPerSecond;
  sample.window_end_ns = kNanosecondsPerSecond + wall_ns;
  return sample;
}

TEST(JobAccounting, CpuIsShareOfTheWindowAndTheSqpollThreadsTime) {
  const Json cpu =
      cpu_json(job_of("io_uring", Pattern::kRandRead), sample_over(2 * kNanosecondsPerSecond));
  EXPECT_EQ(cpu, Json({{"user_s", 0.5},
                       {"system_s", 0.25},
                       {"usr_pct", 25.0},
                       {"sys_pct", 12.5},
                       {"voluntary_ctx", 5},
                       {"involuntary_ctx", 3},
                       {"submitter_s", 0.75},
                       {"submitter_busy", 0.375}}));
  EXPECT_TRUE(cpu["voluntary_ctx"].is_number_integer());
  EXPECT_EQ(cpu_json(job_of("io_uring", Pattern::kRandRead), sample_over(0))["usr_pct"], 0.0);

  const ProbeJob sqpoll = job_of("io_uring+sqpoll", Pattern::kRandRead);
  JobSample sample = sample_over(2 * kNanosecondsPerSecond);
  EXPECT_EQ(cpu_json(sqpoll, sample)["unavailable"]["sqpoll_thread_s"],
            "no iou-sqp thread found in /proc/self/task");
  sample.sqpoll_start = 1.0;
  sample.sqpoll_end = 2.75;
  EXPECT_EQ(cpu_json(sqpoll, sample)["sqpoll_thread_s"], 1.75);
}

TEST(JobAccounting, ASleepingSubmitterOnACpuNearlyAllTheWindowIsCalledCpuBound) {
  const ProbeJob job = job_of("libaio", Pattern::kRandRead);
  EXPECT_EQ(cpu_bound_note(job, {{"submitter_busy", 0.89}}), std::nullopt);
  EXPECT_EQ(cpu_bound_note(job, Json::object()), std::nullopt);
  EXPECT_EQ(cpu_bound_note(job, {{"submitter_busy", "0.95"}}), std::nullopt);
  EXPECT_EQ(
      cpu_bound_note(job, {{"submitter_busy", 0.946}}),
      "the submitting thread was on a CPU 95 % of the window: these IOPS measure its CPU cost "
      "per I/O as much as the device");
  // Polling and spinning keep the thread busy by design: that says nothing of the device.
  for (const char* engine : {"io_uring+iopoll", "io_uring+sqpoll"}) {
    EXPECT_EQ(cpu_bound_note(job_of(engine, Pattern::kRandRead), {{"submitter_busy", 1.0}}),
              std::nullopt)
        << engine;
  }
  ProbeJob spinning = job;
  spinning.completion_wait = CompletionWait::kSpin;
  EXPECT_EQ(cpu_bound_note(spinning, {{"submitter_busy", 1.0}}), std::nullopt);
}

// A recorder that measured two seconds of reads, 10 us each, 100 a second.
Recorder measured_reads() {
  Recorder recorder(0, 0, 2 * kNanosecondsPerSecond, 4096, nullptr);
  (void)recorder.finished(0);
  for (uint64_t t = 1000; t < 2 * kNanosecondsPerSecond; t += kNanosecondsPerSecond / 100) {
    (void)recorder.finished(t);
    recorder.submit_call(1);
    recorder.completed(false, t - 10000, t - 8000, t);
  }
  recorder.reap_call();
  (void)recorder.finished(2 * kNanosecondsPerSecond);
  return recorder;
}

DiskStats stats(uint64_t reads, uint64_t sectors) {
  DiskStats out;
  out.fields.assign(17, 0);
  out.fields[0] = reads;
  out.fields[2] = sectors;
  return out;
}

TEST(JobAccounting, MeasurementsOfAReadJobOnALoopDevice) {
  const Recorder recorder = measured_reads();
  const std::optional<BlockDeviceRef> loop = BlockDeviceRef{7, 0, "loop0", "loop0", "", false};
  const std::string no_device = "unused";
  JobSample sample = sample_over(2 * kNanosecondsPerSecond);
  sample.disk_before = stats(10, 80);
  sample.disk_after = Result<DiskStats>(stats(210, 1680));
  sample.trace = Json({{"block", {{"ios", 200}}}});
  JobResult result(job_of("io_uring", Pattern::kRandRead));
  add_measurements(result, recorder, sample, {loop, no_device});
  Json out = result.to_json();
  EXPECT_EQ(out["elapsed_s"], 2.0);
  EXPECT_FALSE(out.contains("write"));
  EXPECT_EQ(out["read"]["ios"], 200);
  EXPECT_EQ(out["read"]["iops"], 100.0);
  EXPECT_EQ(out["read"]["bw_bytes"], 409600.0);
  EXPECT_EQ(out["read"]["iops_per_second"]["samples"], Json({100, 100}));
  EXPECT_TRUE(out["read"]["lat_ns"]["per_second"].is_object());
  EXPECT_EQ(out["submit"],
            Json({{"calls", 200}, {"ios", 200}, {"ios_per_call", 1.0}, {"reap_only_calls", 1}}));
  EXPECT_EQ(out["diskstats"]["reads"], 200);
  EXPECT_EQ(out["diskstats"]["probe_ios"], 200);
  EXPECT_EQ(out["trace"]["diskstats"], trace_diskstats(out["diskstats"]));
  EXPECT_EQ(out["trace"]["block"]["ios"], 200);
  EXPECT_EQ(out["unavailable"],
            Json({{"interrupts",
                   "no interrupt line of loop0's controller in /proc/interrupts "
                   "(virtual device: loop, zram, dm)"}}));
}

TEST(JobAccounting, WithoutADeviceEachCounterSaysWhy) {
  const Recorder recorder = measured_reads();
  const std::optional<BlockDeviceRef> none;
  const std::string why = "tmpfs has no block device";
  JobResult result(job_of("io_uring", Pattern::kRandRead));
  add_measurements(result, recorder, sample_over(2 * kNanosecondsPerSecond), {none, why});
  Json out = result.to_json();
  EXPECT_EQ(out["unavailable"], Json({{"interrupts", why}, {"diskstats", why}}));
  EXPECT_FALSE(out.contains("trace"));
  EXPECT_FALSE(out.contains("diskstats"));
}

TEST(JobAccounting, InterruptsAndAFailedSecondStatRead) {
  const Recorder recorder = measured_reads();
  const std::optional<BlockDeviceRef> vda = BlockDeviceRef{254, 0, "vda", "vda", "", false};
  const std::string unused;
  JobSample sample = sample_over(2 * kNanosecondsPerSecond);
  sample.interrupts_start = DeviceInterrupts{1000, Json({"virtio1-req.0"})};
  sample.interrupts_end = DeviceInterrupts{1150, Json({"virtio1-req.0"})};
  sample.disk_before = stats(0, 0);
  sample.disk_after = Result<DiskStats>(make_error(ENOENT, "/sys/dev/block/254:0/stat"));
  JobResult result(job_of("io_uring", Pattern::kRandRead));
  add_measurements(result, recorder, sample, {vda, unused});
  Json out = result.to_json();
  EXPECT_EQ(out["interrupts"], Json({{"count", 150}, {"lines", {"virtio1-req.0"}}}));
  EXPECT_EQ(out["unavailable"]["diskstats"], sample.disk_after->error().describe());
  EXPECT_FALSE(out["unavailable"].contains("interrupts"));
}

TEST(JobAccounting, ReadsAndWritesEachWithoutPerSecondSamples) {
  Recorder recorder(0, 0, kNanosecondsPerSecond, 4096, nullptr);
  (void)recorder.finished(0);
  recorder.completed(false, 0, 10, 100);
  recorder.completed(true, 0, 10, 200);
  (void)recorder.finished(kNanosecondsPerSecond);
  const std::optional<BlockDeviceRef> none;
  const std::string why = "none";
  JobResult result(job_of("io_uring", Pattern::kRandRw));
  add_measurements(result, recorder, sample_over(kNanosecondsPerSecond), {none, why});
  Json out = result.to_json();
  EXPECT_EQ(out["read"]["ios"], 1);
  EXPECT_EQ(out["write"]["ios"], 1);
  EXPECT_FALSE(out["read"].contains("iops_per_second"));
  EXPECT_FALSE(out["write"]["lat_ns"].contains("per_second"));
}

TEST(JobAccounting, FailuresAreExplained) {
  FailureContext context;
  const Json failure = failure_json(EPERM, "io_uring_queue_init", EngineMode{}, context);
  EXPECT_EQ(failure["errno"], EPERM);
  EXPECT_EQ(failure["error"], "io_uring_queue_init");
  EXPECT_EQ(failure["cause"], explain_failure(EPERM, EngineMode{}, context));
}

}  // namespace
}  // namespace kdrift
