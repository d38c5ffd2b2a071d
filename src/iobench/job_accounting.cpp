#include "iobench/job_accounting.h"

#include <cmath>
#include <utility>

#include "util/units.h"

namespace kdrift {
namespace {

double seconds(uint64_t nanoseconds) {
  return static_cast<double>(nanoseconds) / 1e9;
}

double timeval_seconds(const timeval& value) {
  return static_cast<double>(value.tv_sec) + static_cast<double>(value.tv_usec) / 1e6;
}

double cpu_seconds(const rusage& start, const rusage& end) {
  return timeval_seconds(end.ru_utime) - timeval_seconds(start.ru_utime) +
         timeval_seconds(end.ru_stime) - timeval_seconds(start.ru_stime);
}

// A thread that sleeps for its completions and is still on a CPU this much of the window is
// limited by its own work per I/O: measured at 0.93-0.95 for both kdrift and fio on the
// virtio-blk file at depth 16 and 128, where 8 times the depth brought no more IOPS.
constexpr double kCpuBoundShare = 0.9;

DirectionResult direction_result(const DirectionStats& stats, double window_s,
                                 const Recorder& recorder, bool only_direction) {
  DirectionResult out;
  out.ios = stats.ios;
  out.bytes = stats.bytes;
  out.iops = window_s > 0 ? static_cast<double>(stats.ios) / window_s : 0.0;
  out.bw_bytes = window_s > 0 ? static_cast<double>(stats.bytes) / window_s : 0.0;
  out.slat = LatencySummary::of(stats.submission);
  out.clat = LatencySummary::of(stats.completion);
  out.lat = LatencySummary::of(stats.total);
  // Per-second samples count both directions; they belong to a direction only when it is alone.
  if (only_direction) {
    out.iops_per_second = PerSecondIops::of_counts(recorder.per_second());
    auto& per_second = out.lat->per_second.emplace();
    for (size_t i = 0; i < kPerSecondPercentiles.size(); ++i) {
      per_second[percentile_key(kPerSecondPercentiles[i])] = recorder.per_second_latency()[i];
    }
  }
  return out;
}

// read when anything was read or nothing was written; write when anything was written.
void add_directions(JobResult& result, const Recorder& recorder, double window_s) {
  const bool reads = recorder.read().ios > 0;
  const bool writes = recorder.write().ios > 0;
  if (reads || !writes) {
    result.read = direction_result(recorder.read(), window_s, recorder, !writes);
  }
  if (writes) result.write = direction_result(recorder.write(), window_s, recorder, !reads);
}

Json submit_json(const Recorder& recorder) {
  return {{"calls", recorder.submit_calls()},
          {"ios", recorder.submitted_ios()},
          {"ios_per_call", ratio(recorder.submitted_ios(), recorder.submit_calls())},
          {"reap_only_calls", recorder.reap_calls()}};
}

void add_interrupts(Json& out, const JobSample& sample, const JobDevice& device) {
  if (sample.interrupts_start && sample.interrupts_end) {
    out["interrupts"] = {{"count", sample.interrupts_end->count - sample.interrupts_start->count},
                         {"lines", sample.interrupts_start->lines}};
    return;
  }
  out["unavailable"]["interrupts"] =
      device.device ? "no interrupt line of " + device.device->disk +
                          "'s controller in /proc/interrupts (virtual device: loop, zram, dm)"
                    : device.unavailable;
}

// The device's counters over the run; the trace, when there is one, gets them too under the
// names its own counts use.
void add_diskstats(Json& out, const JobSample& sample, const JobDevice& device,
                   const Recorder& recorder, Json& trace) {
  if (!sample.disk_after) {
    out["unavailable"]["diskstats"] =
        device.device ? "cannot read the device's stat file" : device.unavailable;
    return;
  }
  if (!*sample.disk_after) {
    out["unavailable"]["diskstats"] = sample.disk_after->error().describe();
    return;
  }
  out["diskstats"] = disk_stats_delta(*sample.disk_before, **sample.disk_after, device.device->name,
                                      recorder.all_completions());
  if (!trace.is_null()) trace["diskstats"] = trace_diskstats(out["diskstats"]);
}

}  // namespace

Json failure_json(int code, const std::string& what, const EngineMode& mode,
                  const FailureContext& context) {
  return {{"errno", code}, {"error", what}, {"cause", explain_failure(code, mode, context)}};
}

Json cpu_json(const ProbeJob& job, const JobSample& sample) {
  const rusage& start = sample.usage_start;
  const rusage& end = sample.usage_end;
  const double wall_s = seconds(sample.window_end_ns - sample.window_start_ns);
  const double user_s = timeval_seconds(end.ru_utime) - timeval_seconds(start.ru_utime);
  const double system_s = timeval_seconds(end.ru_stime) - timeval_seconds(start.ru_stime);
  const double submitter_s = cpu_seconds(sample.submitter_start, sample.submitter_end);
  Json cpu = {{"user_s", user_s},
              {"system_s", system_s},
              {"usr_pct", wall_s > 0 ? 100 * user_s / wall_s : 0.0},
              {"sys_pct", wall_s > 0 ? 100 * system_s / wall_s : 0.0},
              {"voluntary_ctx", end.ru_nvcsw - start.ru_nvcsw},
              {"involuntary_ctx", end.ru_nivcsw - start.ru_nivcsw},
              {"submitter_s", submitter_s},
              {"submitter_busy", wall_s > 0 ? submitter_s / wall_s : 0.0}};
  if (!job.engine.sqpoll) return cpu;
  if (sample.sqpoll_start && sample.sqpoll_end) {
    cpu["sqpoll_thread_s"] = *sample.sqpoll_end - *sample.sqpoll_start;
  } else {
    cpu["unavailable"]["sqpoll_thread_s"] = "no iou-sqp thread found in /proc/self/task";
  }
  return cpu;
}

std::optional<std::string> cpu_bound_note(const ProbeJob& job, const Json& cpu) {
  if (job.engine.iopoll || job.engine.sqpoll || job.completion_wait == CompletionWait::kSpin) {
    return std::nullopt;
  }
  const auto busy = cpu.contains("submitter_busy") && cpu["submitter_busy"].is_number()
                        ? cpu["submitter_busy"].get<double>()
                        : 0.0;
  if (busy < kCpuBoundShare) return std::nullopt;
  return "the submitting thread was on a CPU " + std::to_string(std::lround(100 * busy)) +
         " % of the window: these IOPS measure its CPU cost per I/O as much as the device";
}

void add_measurements(JobResult& result, const Recorder& recorder, JobSample sample,
                      const JobDevice& device) {
  const double window_s = seconds(recorder.measured_ns());
  result.elapsed_s = window_s;
  add_directions(result, recorder, window_s);
  Json& out = result.verbatim;
  out["cpu"] = cpu_json(*result.job, sample);
  if (auto note = cpu_bound_note(*result.job, out["cpu"])) out["cpu_bound"] = *note;
  out["submit"] = submit_json(recorder);
  add_interrupts(out, sample, device);
  Json trace = std::move(sample.trace);
  add_diskstats(out, sample, device, recorder, trace);
  if (!trace.is_null()) out["trace"] = std::move(trace);
}

}  // namespace kdrift
