#include "probe/job_accounting.h"

#include <algorithm>
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

Json direction_json(const DirectionStats& stats, double window_s, const Recorder& recorder,
                    bool only_direction) {
  Json out = {{"ios", stats.ios},
              {"bytes", stats.bytes},
              {"iops", window_s > 0 ? static_cast<double>(stats.ios) / window_s : 0.0},
              {"bw_bytes", window_s > 0 ? static_cast<double>(stats.bytes) / window_s : 0.0},
              {"slat_ns", latency_json(stats.submission)},
              {"clat_ns", latency_json(stats.completion)},
              {"lat_ns", latency_json(stats.total)}};
  // Per-second samples count both directions; they belong to a direction only when it is alone.
  if (only_direction) {
    out["iops_per_second"] = samples_json(recorder.per_second());
    Json per_second = Json::object();
    for (size_t i = 0; i < kPerSecondPercentiles.size(); ++i) {
      per_second[percentile_key(kPerSecondPercentiles[i])] = recorder.per_second_latency()[i];
    }
    out["lat_ns"]["per_second"] = std::move(per_second);
  }
  return out;
}

// read when anything was read or nothing was written; write when anything was written.
void add_directions(Json& out, const Recorder& recorder, double window_s) {
  const bool reads = recorder.read().ios > 0;
  const bool writes = recorder.write().ios > 0;
  if (reads || !writes) {
    out["read"] = direction_json(recorder.read(), window_s, recorder, !writes);
  }
  if (writes) out["write"] = direction_json(recorder.write(), window_s, recorder, !reads);
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

Json job_json(const ProbeJob& job) {
  Json out = {{"name", job.name()},
              {"workload", job.workload},
              {"engine", job.engine.label()},
              {"rw", pattern_name(job.rw)},
              {"bs", job.block_size},
              {"iodepth", job.effective_iodepth()},
              {"batch",
               {{"submit", job.batch_submit},
                {"complete_min", job.batch_complete_min},
                {"complete_max", job.batch_complete_max}}},
              {"completion_wait", completion_wait_name(job.completion_wait)},
              {"ramp_s", seconds(static_cast<uint64_t>(job.ramp.count()) * 1000)},
              {"runtime_s", seconds(static_cast<uint64_t>(job.runtime.count()) * 1000)}};
  if (job.rw == Pattern::kRandRw) out["rwmixread"] = job.rwmixread;
  return out;
}

Json failure_json(int code, const std::string& what, const EngineMode& mode,
                  const FailureContext& context) {
  return {{"errno", code}, {"error", what}, {"cause", explain_failure(code, mode, context)}};
}

Json samples_json(const std::vector<uint64_t>& samples) {
  if (samples.empty()) return {{"samples", Json::array()}};
  std::vector<uint64_t> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const size_t middle = sorted.size() / 2;
  const double median = sorted.size() % 2 == 1
                            ? static_cast<double>(sorted[middle])
                            : static_cast<double>(sorted[middle - 1] + sorted[middle]) / 2.0;
  return {
      {"min", sorted.front()}, {"median", median}, {"max", sorted.back()}, {"samples", samples}};
}

Json cpu_json(const ProbeJob& job, const JobSample& sample) {
  const rusage& start = sample.usage_start;
  const rusage& end = sample.usage_end;
  const double wall_s = seconds(sample.window_end_ns - sample.window_start_ns);
  const double user_s = timeval_seconds(end.ru_utime) - timeval_seconds(start.ru_utime);
  const double system_s = timeval_seconds(end.ru_stime) - timeval_seconds(start.ru_stime);
  Json cpu = {{"user_s", user_s},
              {"system_s", system_s},
              {"usr_pct", wall_s > 0 ? 100 * user_s / wall_s : 0.0},
              {"sys_pct", wall_s > 0 ? 100 * system_s / wall_s : 0.0},
              {"voluntary_ctx", end.ru_nvcsw - start.ru_nvcsw},
              {"involuntary_ctx", end.ru_nivcsw - start.ru_nivcsw}};
  if (!job.engine.sqpoll) return cpu;
  if (sample.sqpoll_start && sample.sqpoll_end) {
    cpu["sqpoll_thread_s"] = *sample.sqpoll_end - *sample.sqpoll_start;
  } else {
    cpu["unavailable"]["sqpoll_thread_s"] = "no iou-sqp thread found in /proc/self/task";
  }
  return cpu;
}

void add_measurements(Json& out, const ProbeJob& job, const Recorder& recorder, JobSample sample,
                      const JobDevice& device) {
  const double window_s = seconds(recorder.measured_ns());
  out["elapsed_s"] = window_s;
  add_directions(out, recorder, window_s);
  out["cpu"] = cpu_json(job, sample);
  out["submit"] = submit_json(recorder);
  add_interrupts(out, sample, device);
  Json trace = std::move(sample.trace);
  add_diskstats(out, sample, device, recorder, trace);
  if (!trace.is_null()) out["trace"] = std::move(trace);
}

}  // namespace kdrift
