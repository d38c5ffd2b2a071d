#pragma once
// What one job's run measured, into its JobResult (the snapshot's probe.jobs entry): the
// recorder's counts and latencies per direction, the CPU the process and the SQPOLL thread
// spent, the submit calls, the controller's interrupts, the device's own counters and the trace,
// each part absent with the reason under "unavailable" when it could not be read.

#include <sys/resource.h>

#include <cstdint>
#include <optional>
#include <string>

#include "iobench/block_device.h"
#include "iobench/diskstats.h"
#include "iobench/failure_cause.h"
#include "iobench/proc_stat.h"
#include "iobench/recorder.h"
#include "model/job_result.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

// What was read around the engine's run, beside what the recorder counted.
struct JobSample {
  rusage usage_start{};  // the process: io-wq and SQPOLL threads included
  rusage usage_end{};
  rusage submitter_start{};  // the thread that submits and reaps
  rusage submitter_end{};
  uint64_t window_start_ns = 0;        // when the ramp ended
  uint64_t window_end_ns = 0;          // when the engine returned
  std::optional<double> sqpoll_start;  // SQPOLL thread seconds, sqpoll modes only
  std::optional<double> sqpoll_end;
  std::optional<DeviceInterrupts> interrupts_start;
  std::optional<DeviceInterrupts> interrupts_end;
  std::optional<DiskStats> disk_before;
  std::optional<Result<DiskStats>> disk_after;  // unset when the first read failed
  Json trace;                                   // null: not traced
};

// The device under the target, or why there is none, for what cannot be counted.
struct JobDevice {
  const std::optional<BlockDeviceRef>& device;
  const std::string& unavailable;  // when device is empty
};

// {errno, error, cause}: a failed engine or I/O, explained.
Json failure_json(int code, const std::string& what, const EngineMode& mode,
                  const FailureContext& context);

// {user_s, system_s, usr_pct, sys_pct, voluntary_ctx, involuntary_ctx, submitter_s,
// submitter_busy} over the window, and sqpoll_thread_s for sqpoll modes.
Json cpu_json(const ProbeJob& job, const JobSample& sample);

// Why the IOPS say as much about the CPU as about the device, when the thread that submits and
// sleeps for completions was on a CPU nearly all of the window: it then issues the next I/O as
// soon as its own work allows, and a tool that spends less per I/O gets more of them (README,
// "kdrift and fio"). Nothing for jobs that poll or spin, which keep the thread busy by design.
std::optional<std::string> cpu_bound_note(const ProbeJob& job, const Json& cpu);

// What a job that ran past its ramp measured, added to its result (whose job it is): elapsed_s,
// read and/or write, and the sections kept as JSON: cpu, submit, interrupts, diskstats, trace.
void add_measurements(JobResult& result, const Recorder& recorder, JobSample sample,
                      const JobDevice& device);

}  // namespace kdrift
