#pragma once
// One job's entry in the snapshot's probe.jobs: what the job was, then what its run measured —
// the recorder's counts and latencies per direction, the CPU the process and the SQPOLL thread
// spent, the submit calls, the controller's interrupts, the device's own counters and the trace,
// each part absent with the reason under "unavailable" when it could not be read.
// The parts are built one function each, so that a typed job result can take them one by one.

#include <sys/resource.h>

#include <cstdint>
#include <optional>
#include <string>

#include "probe/block_device.h"
#include "probe/diskstats.h"
#include "probe/failure_cause.h"
#include "model/probe_job.h"
#include "probe/proc_stat.h"
#include "probe/recorder.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

// What was read around the engine's run, beside what the recorder counted.
struct JobSample {
  rusage usage_start{};
  rusage usage_end{};
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

// name, workload, engine, rw, bs, iodepth, batch, completion_wait, ramp_s, runtime_s (and
// rwmixread for randrw): the job as it was asked for.
Json job_json(const ProbeJob& job);

// {errno, error, cause}: a failed engine or I/O, explained.
Json failure_json(int code, const std::string& what, const EngineMode& mode,
                  const FailureContext& context);

// {min, median, max, samples} of per-second counts.
Json samples_json(const std::vector<uint64_t>& samples);

// {user_s, system_s, usr_pct, sys_pct, voluntary_ctx, involuntary_ctx} over the window, and
// sqpoll_thread_s for sqpoll modes.
Json cpu_json(const ProbeJob& job, const JobSample& sample);

// What a job that ran past its ramp measured, added to its entry: elapsed_s, read and/or write,
// cpu, submit, interrupts, diskstats and trace.
void add_measurements(Json& out, const ProbeJob& job, const Recorder& recorder, JobSample sample,
                      const JobDevice& device);

}  // namespace kdrift
