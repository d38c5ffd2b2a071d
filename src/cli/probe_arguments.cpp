#include "cli/probe_arguments.h"

#include <unistd.h>

#include <cstdio>

#include "util/fatal.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& option, const std::string& text, Parse parse) {
  std::vector<T> values;
  for (const auto& item : split(text, ',')) {
    auto value = parse(std::string(trim(item)));
    if (!value) throw FatalError(option + ": cannot use " + quote_value(item));
    values.push_back(*value);
  }
  return values;
}

std::chrono::microseconds duration_option(const std::string& option, const std::string& text) {
  auto value = parse_duration(text);
  if (!value) throw FatalError(option + ": not a duration: " + quote_value(text));
  return *value;
}

}  // namespace

void ProbeArguments::add_target_options(CLI::App& command) {
  command.add_option("--target", target,
                     "Directory (a temporary file is created there), file or raw block device "
                     "(default: the current directory)");
  command.add_flag("--allow-write", allow_write,
                   "Allow writes to an existing file or to a raw device that holds no signature, "
                   "is not mounted and has no holders");
  command.add_flag("--no-trace", no_trace,
                   "Do not count what the block layer did during each job (BPF)");
}

void ProbeArguments::add_override_options(CLI::App& command) {
  command.add_option("--profile", profile, "Built-in profile name or a TOML file (default quick)");
  add_target_options(command);
  command.add_option("--precondition", precondition,
                     "none or discard (BLKDISCARD of a write-allowed raw device first)");
  command.add_option("--engine", engines,
                     "Engines, comma-separated: io_uring, libaio, psync, pvsync2, with +iopoll, "
                     "+sqpoll, +fixedbufs, +regfiles, +hipri");
  command.add_flag("--iopoll", iopoll,
                   "io_uring engines poll for completions (IORING_SETUP_IOPOLL)");
  command.add_flag("--sqpoll", sqpoll, "io_uring engines use a submission polling thread");
  command.add_flag("--fixedbufs", fixedbufs, "io_uring engines use registered buffers");
  command.add_flag("--regfiles", regfiles, "io_uring engines use a registered file");
  command.add_option("--sqpoll-cpu", sqpoll_cpu, "Pin the SQPOLL thread to CPU");
  command.add_option("--rw", rw, "randread, randwrite, read, write or randrw");
  command.add_option("--rwmixread", rwmixread, "Percent reads in randrw");
  command.add_option("--bs", block_sizes, "Block sizes, comma-separated (4k,8k,...)");
  command.add_option("--iodepth", iodepths, "Queue depths, comma-separated (1,4,16,...)");
  command.add_option("--runtime", runtime, "Measured time per job (5s, 500ms)");
  command.add_option("--ramp", ramp, "Unmeasured warm-up per job");
  command.add_option("--size", size, "Size of the temporary file in a directory target");
  command.add_option("--batch-submit", batch_submit, "I/Os per submit call (0: all free slots)");
  command.add_option("--batch-complete-min", batch_complete_min, "Completions waited for per reap");
  command.add_option("--batch-complete-max", batch_complete_max,
                     "Completions reaped at most per pass (0: all; default: as many as "
                     "--batch-complete-min, as fio)");
  command.add_option("--completion-wait", completion_wait,
                     "sleep (as fio) or spin (look for completions a few microseconds before "
                     "sleeping) once the queue is full");
  command.add_flag("--no-capabilities", no_capabilities,
                   "Skip the canary reads through every mode (~0.1 s of CPU)");
  auto* cpus_option = command.add_option("--cpus", cpus, "Pin the probe to this cpu list");
  command.add_option("--numa", numa, "Pin to a node: local, remote (to the device) or N")
      ->excludes(cpus_option);
}

Profile ProbeArguments::resolve_profile() const {
  auto loaded = load_profile(profile);
  if (!loaded) throw FatalError(loaded.error().describe());
  ProfileOverrides overrides;
  if (!engines.empty()) {
    overrides.engines = parse_list<EngineMode>("--engine", engines, [](const std::string& item) {
      auto mode = EngineMode::parse(item);
      if (!mode) throw FatalError("--engine: " + mode.error().context);
      return std::optional<EngineMode>(*mode);
    });
  }
  if (!rw.empty()) {
    overrides.rw = parse_pattern(rw);
    if (!overrides.rw)
      throw FatalError("--rw: expected randread, randwrite, read, write or randrw");
  }
  if (rwmixread >= 0) {
    if (rwmixread > 100) throw FatalError("--rwmixread: a percentage, 0 to 100");
    overrides.rwmixread = static_cast<uint32_t>(rwmixread);
  }
  if (!block_sizes.empty()) {
    overrides.block_sizes = parse_list<uint64_t>("--bs", block_sizes, [](const std::string& item) {
      auto size = parse_size(item);
      return size && *size > 0 && *size % 512 == 0 ? size : std::nullopt;
    });
  }
  if (!iodepths.empty()) {
    overrides.iodepths = parse_list<uint32_t>("--iodepth", iodepths, [](const std::string& item) {
      auto depth = parse_uint(item);
      return depth && *depth >= 1 && *depth <= 4096 ? std::optional<uint32_t>(*depth)
                                                    : std::nullopt;
    });
  }
  if (!completion_wait.empty()) {
    overrides.completion_wait = parse_completion_wait(completion_wait);
    if (!overrides.completion_wait) throw FatalError("--completion-wait: sleep or spin");
  }
  if (!runtime.empty()) overrides.runtime = duration_option("--runtime", runtime);
  if (!ramp.empty()) overrides.ramp = duration_option("--ramp", ramp);
  if (!size.empty()) {
    overrides.file_size = parse_size(size);
    if (!overrides.file_size || *overrides.file_size < (uint64_t{1} << 20)) {
      throw FatalError("--size: at least 1m, not " + quote_value(size));
    }
  }
  for (const auto& [value, field] :
       {std::pair{batch_submit, &overrides.batch_submit},
        std::pair{batch_complete_min, &overrides.batch_complete_min},
        std::pair{batch_complete_max, &overrides.batch_complete_max}}) {
    if (value >= 0) *field = static_cast<uint32_t>(value);
  }
  Profile resolved = *loaded;
  apply_overrides(resolved, overrides);
  for (auto& workload : resolved.workloads) {
    for (auto& mode : workload.engines) {
      if (mode.kind != EngineKind::kIoUring) continue;
      mode.iopoll = mode.iopoll || iopoll;
      mode.sqpoll = mode.sqpoll || sqpoll;
      mode.fixedbufs = mode.fixedbufs || fixedbufs;
      mode.regfiles = mode.regfiles || regfiles;
    }
  }
  return resolved;
}

ProbeOptions ProbeArguments::resolve_options(const Profile& resolved) const {
  ProbeOptions options;
  options.target = target;
  options.allow_write = allow_write;
  if (precondition.empty()) {
    options.precondition_discard = resolved.precondition == Precondition::kDiscard;
  } else if (precondition == "discard" || precondition == "none") {
    options.precondition_discard = precondition == "discard";
  } else {
    throw FatalError("--precondition: none or discard, not " + quote_value(precondition));
  }
  if (!cpus.empty()) {
    auto placement = parse_cpus(cpus);
    if (!placement) throw FatalError(placement.error().describe());
    options.placement = *placement;
  }
  if (!numa.empty()) {
    auto placement = parse_numa(numa);
    if (!placement) throw FatalError(placement.error().describe());
    options.placement = *placement;
  }
  if (sqpoll_cpu >= 0) options.sqpoll_cpu = sqpoll_cpu;
  options.capabilities = !no_capabilities;
  options.trace = !no_trace;
  if (isatty(STDERR_FILENO) != 0) {
    options.progress = [](size_t index, size_t count, const std::string& job) {
      // Job names come from the profile, which may be someone else's file.
      (void)std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", index + 1, count,
                         terminal_safe(job).c_str());
      if (index + 1 == count) (void)std::fprintf(stderr, "\n");
    };
  }
  return options;
}

Json run_probe_or_exit(const Profile& profile, const ProbeOptions& options) {
  auto section = run_probe(profile, options, SysRoot("/"));
  if (!section) throw FatalError("probe: " + section.error().describe());
  return *section;
}

}  // namespace kdrift
