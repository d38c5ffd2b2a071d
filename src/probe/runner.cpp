#include "probe/runner.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "collect/irq.h"
#include "probe/diskstats.h"
#include "probe/engine.h"
#include "probe/failure_cause.h"
#include "probe/target.h"
#include "trace/trace_session.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

double seconds(uint64_t nanoseconds) {
  return static_cast<double>(nanoseconds) / 1e9;
}

double timeval_seconds(const timeval& value) {
  return static_cast<double>(value.tv_sec) + static_cast<double>(value.tv_usec) / 1e6;
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

// Interrupt counts of the lines that belong to the disk's controller.
std::optional<std::pair<uint64_t, Json>> device_interrupts(const SysRoot& root,
                                                           const std::string& disk) {
  const Json irq = collect_irq(root);
  const auto storage = irq.find("storage");
  if (storage == irq.end() || !storage->is_array()) return std::nullopt;
  uint64_t total = 0;
  Json lines = Json::array();
  for (const auto& row : *storage) {
    const auto devices = row.value("block_devices", Json::array());
    if (std::find(devices.begin(), devices.end(), disk) == devices.end()) continue;
    total += row.value("total", uint64_t{0});
    lines.push_back(row.value("name", std::string()));
  }
  if (lines.empty()) return std::nullopt;
  return std::make_pair(total, lines);
}

// /proc/self/task/<tid> of the io_uring SQPOLL thread ("iou-sqp-<pid>"), if one is running.
std::optional<std::string> sqpoll_thread_dir(const SysRoot& root) {
  auto tasks = root.list("/proc/self/task");
  if (!tasks) return std::nullopt;
  for (const auto& task : *tasks) {
    const std::string dir = "/proc/self/task/" + task;
    auto comm = root.read_value(dir + "/comm");
    if (comm && starts_with(*comm, "iou-sqp-")) return dir;
  }
  return std::nullopt;
}

// A closed ring's SQPOLL thread goes on polling until the kernel tears the ring down, up to
// its idle time (1 s): on a small machine it would take a CPU from the next job. Wait for it.
void wait_for_sqpoll_exit(const SysRoot& root) {
  for (int attempt = 0; attempt < 300 && sqpoll_thread_dir(root); ++attempt)
    ::usleep(10000);
}

// utime + stime of the io_uring SQPOLL thread, in seconds.
std::optional<double> sqpoll_thread_seconds(const SysRoot& root) {
  if (const auto dir = sqpoll_thread_dir(root)) {
    auto stat = root.read(*dir + "/stat");
    if (!stat) return std::nullopt;
    const auto close = stat->rfind(')');
    if (close == std::string::npos) return std::nullopt;
    const auto fields = split_whitespace(std::string_view(*stat).substr(close + 1));
    // After "pid (comm)": state is field 3, utime 14, stime 15.
    if (fields.size() < 13) return std::nullopt;
    const auto user = parse_uint(fields[11]);
    const auto system = parse_uint(fields[12]);
    if (!user || !system) return std::nullopt;
    return static_cast<double>(*user + *system) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  return std::nullopt;
}

Result<std::vector<int>> node_cpus(const SysRoot& root, int node) {
  const std::string path = "/sys/devices/system/node/node" + std::to_string(node) + "/cpulist";
  auto text = root.read_value(path);
  if (!text) return text.error();
  auto cpus = parse_cpu_list(*text);
  if (!cpus || cpus->empty()) return content_error(path + ": no cpus in " + quote_value(*text));
  return *cpus;
}

struct ResolvedPlacement {
  std::vector<int> cpus;  // empty: not pinned
  Json description;
};

Result<ResolvedPlacement> resolve_placement(const Placement& placement, const Target& target,
                                            const SysRoot& root) {
  ResolvedPlacement out;
  Json& description = out.description;
  description["device_numa_node"] = target.numa_node() ? Json(*target.numa_node()) : Json(nullptr);
  int node = -1;
  switch (placement.kind) {
    case Placement::Kind::kNone:
      description["pinned"] = false;
      return out;
    case Placement::Kind::kCpus:
      out.cpus = placement.cpus;
      description["source"] = "--cpus";
      break;
    case Placement::Kind::kNumaNode:
      node = placement.node;
      description["source"] = "--numa " + std::to_string(node);
      break;
    case Placement::Kind::kNumaLocal:
    case Placement::Kind::kNumaRemote: {
      if (!target.numa_node()) {
        return make_error(ENODEV, "--numa local/remote: the device under " + target.path() +
                                      " reports no NUMA node");
      }
      node = *target.numa_node();
      description["source"] = "--numa local";
      if (placement.kind == Placement::Kind::kNumaRemote) {
        auto nodes = root.read_value("/sys/devices/system/node/has_cpu");
        auto list = nodes ? parse_cpu_list(*nodes) : std::nullopt;
        const auto other = list ? std::find_if(list->begin(), list->end(),
                                               [&](int candidate) { return candidate != node; })
                                : std::vector<int>::iterator();
        if (!list || other == list->end()) {
          return make_error(ENODEV, "--numa remote: this host has no other node with cpus");
        }
        node = *other;
        description["source"] = "--numa remote";
      }
      break;
    }
  }
  if (node >= 0) {
    auto cpus = node_cpus(root, node);
    if (!cpus) return cpus.error();
    out.cpus = *cpus;
    description["node"] = node;
  }
  description["pinned"] = true;
  description["cpus"] = out.cpus;
  return out;
}

// Pins the calling thread for the lifetime of the object, then restores its mask.
class AffinityGuard {
 public:
  static Result<AffinityGuard> pin(const std::vector<int>& cpus) {
    AffinityGuard guard;
    if (cpus.empty()) return guard;
    if (::sched_getaffinity(0, sizeof guard.saved_, &guard.saved_) != 0) {
      return make_error(errno, "sched_getaffinity");
    }
    cpu_set_t wanted;
    CPU_ZERO(&wanted);
    for (const int cpu : cpus) {
      if (cpu < 0 || cpu >= CPU_SETSIZE) return make_error(EINVAL, "cpu " + std::to_string(cpu));
      CPU_SET(cpu, &wanted);
    }
    if (::sched_setaffinity(0, sizeof wanted, &wanted) != 0) {
      return make_error(errno, "sched_setaffinity to the requested cpus");
    }
    guard.restore_ = true;
    return guard;
  }
  AffinityGuard(AffinityGuard&& other) noexcept
      : saved_(other.saved_), restore_(std::exchange(other.restore_, false)) {}
  AffinityGuard& operator=(AffinityGuard&&) = delete;
  AffinityGuard(const AffinityGuard&) = delete;
  ~AffinityGuard() {
    if (restore_) ::sched_setaffinity(0, sizeof saved_, &saved_);
  }

 private:
  AffinityGuard() { CPU_ZERO(&saved_); }
  cpu_set_t saved_;
  bool restore_ = false;
};

Json failure_json(int code, const std::string& what, const EngineMode& mode,
                  const FailureContext& context) {
  return {{"errno", code}, {"error", what}, {"cause", explain_failure(code, mode, context)}};
}

struct JobRun {
  const Target& target;
  const SysRoot& root;
  const FailureContext& context;
  TraceSession* trace;          // null when tracing is off or unavailable
  const std::string& no_trace;  // why, then
};

Json run_job(const ProbeJob& job, const JobRun& run) {
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
  if (pattern_writes(job.rw) && !run.target.writable()) {
    std::string reasons;
    for (const auto& reason : run.target.write_refusals()) {
      reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    out["status"] = "skipped";
    out["reason"] = "writes refused on this target: " + reasons;
    return out;
  }
  if (job.block_size > run.target.size()) {
    out["status"] = "skipped";
    out["reason"] = "block size " + format_size(job.block_size) + " is larger than the target (" +
                    format_size(run.target.size()) + ")";
    return out;
  }
  ProbeJob effective = job;
  effective.iodepth = job.effective_iodepth();
  BufferPool buffers(effective.iodepth, job.block_size);
  if (!buffers.ok()) {
    out["status"] = "failed";
    out["failure"] = failure_json(ENOMEM, "I/O buffers", job.engine, run.context);
    return out;
  }
  auto engine = make_engine(effective, run.target.fd(), buffers);
  if (!engine) {
    out["status"] = "failed";
    out["failure"] =
        failure_json(engine.error().code, engine.error().context, job.engine, run.context);
    return out;
  }
  out["setup"] = (*engine)->setup();

  const auto& device = run.target.device();
  // Attached before the first diskstats read and detached after the last, so the programs see
  // everything the device counts in between.
  std::string no_trace = run.no_trace;
  bool traced = false;
  if (run.trace != nullptr) {
    auto attached = run.trace->attach();
    traced = attached.ok();
    if (!traced) no_trace = attached.error().describe();
  }
  std::optional<DiskStats> disk_before;
  if (device) {
    if (auto stats = read_disk_stats(run.root, *device)) disk_before = *stats;
  }
  rusage usage_start{};
  uint64_t window_start_ns = 0;
  std::optional<double> sqpoll_start;
  std::optional<std::pair<uint64_t, Json>> interrupts_start;
  auto measure_start = [&] {
    if (device) interrupts_start = device_interrupts(run.root, device->disk);
    if (job.engine.sqpoll) sqpoll_start = sqpoll_thread_seconds(run.root);
    ::getrusage(RUSAGE_SELF, &usage_start);
    window_start_ns = monotonic_ns();
  };
  IoPattern pattern(effective, run.target.size(), 0x5eed + job.block_size + job.iodepth);
  Recorder recorder(monotonic_ns(), static_cast<uint64_t>(job.ramp.count()) * 1000,
                    static_cast<uint64_t>(job.runtime.count()) * 1000, job.block_size,
                    measure_start);
  const auto failure = (*engine)->run(pattern, recorder);
  rusage usage_end{};
  ::getrusage(RUSAGE_SELF, &usage_end);
  const uint64_t window_end_ns = monotonic_ns();
  const auto sqpoll_end = job.engine.sqpoll ? sqpoll_thread_seconds(run.root) : std::nullopt;
  const auto interrupts_end =
      device && interrupts_start ? device_interrupts(run.root, device->disk) : std::nullopt;
  engine->reset();  // the ring's teardown is not part of what the device saw
  if (job.engine.sqpoll) wait_for_sqpoll_exit(run.root);
  std::optional<Result<DiskStats>> disk_after;
  if (device && disk_before) disk_after = read_disk_stats(run.root, *device);
  Json trace;
  if (traced) {
    trace = run.trace->detach();
  } else {
    out["unavailable"]["trace"] = no_trace;
  }

  if (failure) {
    out["status"] = "failed";
    out["failure"] = failure_json(failure->code, failure->what, job.engine, run.context);
  } else {
    out["status"] = "ok";
    if (auto doubt = polling_doubt(job.engine, run.context)) out["polling_doubt"] = *doubt;
  }
  if (!recorder.measuring()) return out;  // failed during the ramp: nothing measured

  const double window_s = seconds(recorder.measured_ns());
  const bool reads = recorder.read().ios > 0;
  const bool writes = recorder.write().ios > 0;
  out["elapsed_s"] = window_s;
  if (reads || !writes) {
    out["read"] = direction_json(recorder.read(), window_s, recorder, !writes);
  }
  if (writes) out["write"] = direction_json(recorder.write(), window_s, recorder, !reads);
  const double wall_s = seconds(window_end_ns - window_start_ns);
  const double user_s = timeval_seconds(usage_end.ru_utime) - timeval_seconds(usage_start.ru_utime);
  const double system_s =
      timeval_seconds(usage_end.ru_stime) - timeval_seconds(usage_start.ru_stime);
  Json cpu = {{"user_s", user_s},
              {"system_s", system_s},
              {"usr_pct", wall_s > 0 ? 100 * user_s / wall_s : 0.0},
              {"sys_pct", wall_s > 0 ? 100 * system_s / wall_s : 0.0},
              {"voluntary_ctx", usage_end.ru_nvcsw - usage_start.ru_nvcsw},
              {"involuntary_ctx", usage_end.ru_nivcsw - usage_start.ru_nivcsw}};
  if (job.engine.sqpoll) {
    if (sqpoll_start && sqpoll_end) {
      cpu["sqpoll_thread_s"] = *sqpoll_end - *sqpoll_start;
    } else {
      cpu["unavailable"]["sqpoll_thread_s"] = "no iou-sqp thread found in /proc/self/task";
    }
  }
  out["cpu"] = std::move(cpu);
  out["submit"] = {{"calls", recorder.submit_calls()},
                   {"ios", recorder.submitted_ios()},
                   {"ios_per_call", ratio(recorder.submitted_ios(), recorder.submit_calls())},
                   {"reap_only_calls", recorder.reap_calls()}};
  if (interrupts_start && interrupts_end) {
    out["interrupts"] = {{"count", interrupts_end->first - interrupts_start->first},
                         {"lines", interrupts_start->second}};
  } else {
    out["unavailable"]["interrupts"] =
        device ? "no interrupt line of " + device->disk +
                     "'s controller in /proc/interrupts (virtual device: loop, zram, dm)"
               : run.target.device_unavailable();
  }
  if (disk_after) {
    if (*disk_after) {
      out["diskstats"] =
          disk_stats_delta(*disk_before, **disk_after, device->name, recorder.all_completions());
      if (!trace.is_null()) trace["diskstats"] = trace_diskstats(out["diskstats"]);
    } else {
      out["unavailable"]["diskstats"] = disk_after->error().describe();
    }
  } else {
    out["unavailable"]["diskstats"] =
        device ? "cannot read the device's stat file" : run.target.device_unavailable();
  }
  if (!trace.is_null()) out["trace"] = std::move(trace);
  return out;
}

// A few milliseconds of random 4 KiB reads per mode, not a single read: a 6.12 guest without
// poll queues completed a polled read at offset 0 and failed the next ones with EOPNOTSUPP.
constexpr std::chrono::microseconds kCanaryTime{5000};
constexpr int kCanaryRounds = 200;  // one second of windows at most

Json run_canaries(const Target& target, const FailureContext& context) {
  Json matrix = Json::object();
  for (const char* name : kCapabilityModes) {
    ProbeJob canary;
    canary.engine = *EngineMode::parse(name);
    canary.rw = Pattern::kRandRead;
    canary.block_size = 4096;
    canary.iodepth = canary.engine.synchronous() ? 1 : 2;
    canary.runtime = kCanaryTime;
    BufferPool buffers(canary.iodepth, canary.block_size);
    Json entry;
    std::optional<IoFailure> failure;
    IoPattern pattern(canary, target.size(), 1);
    // On a loaded host the window can close before the first completion is reaped, and a canary
    // that reaped nothing has seen no error either (a 6.12 guest without poll queues read as
    // "ok" that way): it runs again, on a fresh engine, until something completed or failed.
    for (int round = 0; round < kCanaryRounds; ++round) {
      auto engine = make_engine(canary, target.fd(), buffers);
      if (!engine) {
        failure = IoFailure{engine.error().code, engine.error().context};
        break;
      }
      Recorder recorder(monotonic_ns(), 0, static_cast<uint64_t>(kCanaryTime.count()) * 1000,
                        canary.block_size, nullptr);
      failure = (*engine)->run(pattern, recorder);
      if (failure || recorder.all_completions() > 0) break;
    }
    if (failure) {
      entry = failure_json(failure->code, failure->what, canary.engine, context);
      entry["status"] = "failed";
    } else if (auto doubt = polling_doubt(canary.engine, context)) {
      entry = {{"status", "ok-without-polling"}, {"cause", *doubt}};
    } else {
      entry = {{"status", "ok"}};
    }
    matrix[name] = std::move(entry);
  }
  return matrix;
}

}  // namespace

Result<Placement> parse_cpus(const std::string& text) {
  auto cpus = parse_cpu_list(text);
  if (!cpus || cpus->empty())
    return make_error(EINVAL, "--cpus: not a cpu list: " + quote_value(text));
  Placement placement;
  placement.kind = Placement::Kind::kCpus;
  placement.cpus = *cpus;
  return placement;
}

Result<Placement> parse_numa(const std::string& text) {
  Placement placement;
  if (text == "local") {
    placement.kind = Placement::Kind::kNumaLocal;
  } else if (text == "remote") {
    placement.kind = Placement::Kind::kNumaRemote;
  } else if (auto node = parse_int(text); node && *node >= 0 && *node < 4096) {
    placement.kind = Placement::Kind::kNumaNode;
    placement.node = static_cast<int>(*node);
  } else {
    return make_error(EINVAL,
                      "--numa: expected local, remote or a node number, not " + quote_value(text));
  }
  return placement;
}

namespace {

// The trace programs for the disk under the target and for this process's io_uring rings.
Result<std::unique_ptr<TraceSession>> open_trace(const Target& target, const SysRoot& root) {
  const auto& device = target.device();
  if (!device) return make_error(ENODEV, target.device_unavailable());
  auto disk = traced_disk(root, *device);
  if (!disk) return disk.error();
  return TraceSession::open({*disk}, static_cast<uint32_t>(::getpid()), running_kernel_features());
}

}  // namespace

Result<Json> run_probe(const Profile& profile, const ProbeOptions& options, const SysRoot& root) {
  TargetOptions target_options;
  target_options.allow_write = options.allow_write;
  target_options.file_size = profile.file_size;
  auto target = Target::open(options.target, target_options, root);
  if (!target) return target.error();
  auto placement = resolve_placement(options.placement, *target, root);
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

  Json precondition = {{"requested", options.precondition_discard ? "discard" : "none"}};
  if (options.precondition_discard) {
    if (auto discarded = target->discard()) {
      precondition["done"] = true;
    } else {
      precondition["done"] = false;
      precondition["reason"] = discarded.error().describe();
    }
  }
  section["precondition"] = std::move(precondition);

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

  const auto jobs = profile.jobs();
  Json results = Json::array();
  const JobRun run{*target, root, context, trace.get(), no_trace};
  for (size_t index = 0; index < jobs.size(); ++index) {
    ProbeJob job = jobs[index];
    if (options.sqpoll_cpu) job.sqpoll_cpu = options.sqpoll_cpu;
    if (options.progress) options.progress(index, jobs.size(), job.name());
    results.push_back(run_job(job, run));
  }
  section["jobs"] = std::move(results);
  section["elapsed_s"] = seconds(monotonic_ns() - started);
  return section;
}

}  // namespace kdrift
