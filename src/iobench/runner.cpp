#include "iobench/runner.h"

#include <unistd.h>

#include "iobench/canaries.h"
#include "iobench/diskstats.h"
#include "iobench/engine.h"
#include "iobench/failure_cause.h"
#include "iobench/job_accounting.h"
#include "iobench/proc_stat.h"
#include "iobench/rounds.h"
#include "iobench/target.h"
#include "trace/trace_session.h"
#include "util/units.h"

namespace kdrift {
namespace {

double seconds(uint64_t nanoseconds) {
  return static_cast<double>(nanoseconds) / 1e9;
}

struct JobRun {
  const Target& target;
  const SysRoot& root;
  const FailureContext& context;
  TraceSession* trace;          // null when tracing is off or unavailable
  const std::string& no_trace;  // why, then
};

// Why the job cannot run on this target at all.
std::optional<std::string> skip_reason(const ProbeJob& job, const Target& target) {
  if (job.writes() && !target.writable()) {
    std::string reasons;
    for (const auto& reason : target.write_refusals()) {
      reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    return "writes refused on this target: " + reasons;
  }
  if (job.block_size > target.size()) {
    return "block size " + format_size(job.block_size) + " is larger than the target (" +
           format_size(target.size()) + ")";
  }
  return std::nullopt;
}

JobResult& mark_failed(JobResult& result, int code, const std::string& what, const JobRun& run) {
  result.status = "failed";
  result.verbatim["failure"] = failure_json(code, what, result.job->engine, run.context);
  return result;
}

// Attached before the first diskstats read and detached after the last, so the programs see
// everything the device counts in between. Why the job is not traced; nullopt when it is.
std::optional<std::string> attach_trace(const JobRun& run) {
  if (run.trace == nullptr) return run.no_trace;
  auto attached = run.trace->attach();
  if (!attached.ok()) return attached.error().describe();
  return std::nullopt;
}

// When the ramp ends: the counters the measured window starts from.
void sample_window_start(const ProbeJob& job, const JobRun& run, JobSample& sample) {
  const auto& device = run.target.device();
  if (device) sample.interrupts_start = device_interrupts(run.root, device->disk);
  if (job.engine.sqpoll) sample.sqpoll_start = sqpoll_thread_seconds(run.root);
  ::getrusage(RUSAGE_SELF, &sample.usage_start);
  ::getrusage(RUSAGE_THREAD, &sample.submitter_start);
  sample.window_start_ns = monotonic_ns();
}

// When the engine has returned, before its teardown.
void sample_window_end(const ProbeJob& job, const JobRun& run, JobSample& sample) {
  const auto& device = run.target.device();
  ::getrusage(RUSAGE_SELF, &sample.usage_end);
  ::getrusage(RUSAGE_THREAD, &sample.submitter_end);
  sample.window_end_ns = monotonic_ns();
  if (job.engine.sqpoll) sample.sqpoll_end = sqpoll_thread_seconds(run.root);
  if (device && sample.interrupts_start) {
    sample.interrupts_end = device_interrupts(run.root, device->disk);
  }
}

// Runs the engine with everything read around it; the engine is torn down before the device's
// last counters are read, since the ring's teardown is not part of what the device saw.
void run_measured(JobResult& result, std::unique_ptr<Engine> engine, const JobRun& run) {
  const ProbeJob& job = *result.job;
  const auto& device = run.target.device();
  const auto no_trace = attach_trace(run);
  JobSample sample;
  if (device) {
    if (auto stats = read_disk_stats(run.root, *device)) sample.disk_before = *stats;
  }
  ProbeJob effective = job;
  effective.iodepth = job.effective_iodepth();
  IoPattern pattern(effective, run.target.size(), 0x5eed + job.block_size + job.iodepth);
  Recorder recorder(monotonic_ns(), static_cast<uint64_t>(job.ramp.count()) * 1000,
                    static_cast<uint64_t>(job.runtime.count()) * 1000, job.block_size,
                    [&] { sample_window_start(job, run, sample); });
  const auto failure = engine->run(pattern, recorder);
  sample_window_end(job, run, sample);
  engine.reset();
  if (job.engine.sqpoll) wait_for_sqpoll_exit(run.root);
  if (device && sample.disk_before) sample.disk_after = read_disk_stats(run.root, *device);
  if (no_trace) {
    result.verbatim["unavailable"]["trace"] = *no_trace;
  } else {
    const bool read_after = sample.disk_after && *sample.disk_after;
    sample.trace =
        run.trace->detach(read_after ? all_completed_before(**sample.disk_after) : std::nullopt);
  }
  if (failure) {
    mark_failed(result, failure->code, failure->what, run);
  } else {
    result.status = "ok";
    if (auto doubt = polling_doubt(job.engine, run.context)) {
      result.verbatim["polling_doubt"] = *doubt;
    }
  }
  if (!recorder.measuring()) return;  // failed during the ramp: nothing measured
  add_measurements(result, recorder, std::move(sample), {device, run.target.device_unavailable()});
}

JobResult run_job(const ProbeJob& job, const JobRun& run) {
  JobResult result(job);
  if (auto reason = skip_reason(job, run.target)) {
    result.status = "skipped";
    result.reason = *reason;
    return result;
  }
  ProbeJob effective = job;
  effective.iodepth = job.effective_iodepth();
  BufferPool buffers(effective.iodepth, job.block_size, job.like_fio);
  if (!buffers.ok()) return mark_failed(result, ENOMEM, "I/O buffers", run);
  auto engine = make_engine(effective, run.target.fd(), buffers);
  if (!engine) return mark_failed(result, engine.error().code, engine.error().context, run);
  result.verbatim["setup"] = (*engine)->setup();
  run_measured(result, std::move(*engine), run);
  return result;
}

// The trace programs for the disk under the target and for this process's io_uring rings.
Result<std::unique_ptr<TraceSession>> open_trace(const Target& target, const SysRoot& root) {
  const auto& device = target.device();
  if (!device) return make_error(ENODEV, target.device_unavailable());
  auto disk = traced_disk(root, *device);
  if (!disk) return disk.error();
  return TraceSession::open({*disk}, static_cast<uint32_t>(::getpid()), running_kernel_features());
}

Json precondition_json(bool discard, const Target& target) {
  Json precondition = {{"requested", discard ? "discard" : "none"}};
  if (!discard) return precondition;
  if (auto discarded = target.discard()) {
    precondition["done"] = true;
  } else {
    precondition["done"] = false;
    precondition["reason"] = discarded.error().describe();
  }
  return precondition;
}

// Round by round, every job once a round (a job skipped in the first round is not run again),
// then each job's rounds folded into its entry (iobench/rounds.h).
Json run_jobs(const Profile& profile, const ProbeOptions& options, const JobRun& run) {
  const auto jobs = profile.jobs();
  const uint32_t round_count = std::max<uint32_t>(options.rounds, 1);
  std::vector<std::vector<JobResult>> rounds(jobs.size());
  for (uint32_t round = 0; round < round_count; ++round) {
    for (size_t index = 0; index < jobs.size(); ++index) {
      if (round > 0 && rounds[index].front().status_or_ok() == "skipped") continue;
      if (options.progress) {
        options.progress(round * jobs.size() + index, round_count * jobs.size(),
                         jobs[index].name());
      }
      rounds[index].push_back(run_job(jobs[index], run));
    }
  }
  Json results = Json::array();
  for (auto& job_rounds : rounds)
    results.push_back(median_round(std::move(job_rounds)).to_json());
  return results;
}

}  // namespace

Result<Json> run_probe(const Profile& profile, const ProbeOptions& options, const SysRoot& root) {
  TargetOptions target_options;
  target_options.allow_write = options.allow_write;
  target_options.file_size = profile.file_size;
  auto target = Target::open(options.target, target_options, root);
  if (!target) return target.error();
  auto placement = resolve_placement(options.placement, target->numa_node(), target->path(), root);
  if (!placement) return placement.error();
  auto pinned = AffinityGuard::pin(placement->cpus);
  if (!pinned) return pinned.error();

  const auto context = FailureContext::read(root, target->device());
  const uint64_t started = monotonic_ns();
  Json section = {
      {"profile",
       {{"name", profile.name}, {"description", profile.description}, {"source", profile.source}}},
      {"target", target->describe()},
      {"placement", placement->description}};
  if (options.capabilities) {
    section["capabilities"] = run_canaries(*target, context);
    wait_for_sqpoll_exit(root);
  } else {
    section["unavailable"]["capabilities"] = "not checked (--no-capabilities)";
  }
  section["precondition"] = precondition_json(options.precondition_discard, *target);

  std::unique_ptr<TraceSession> trace;
  std::string no_trace = "tracing off (--no-trace)";
  if (options.trace) {
    auto loaded = open_trace(*target, root);
    if (loaded) {
      trace = std::move(*loaded);
    } else {
      no_trace = loaded.error().describe();
    }
  }
  if (options.rounds > 1) section["rounds"] = options.rounds;
  section["jobs"] = run_jobs(profile, options, {*target, root, context, trace.get(), no_trace});
  section["elapsed_s"] = seconds(monotonic_ns() - started);
  return section;
}

}  // namespace kdrift
