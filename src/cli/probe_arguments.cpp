#include "cli/probe_arguments.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "probe/job_validation.h"
#include "util/fatal.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

// A value of option, or fatal with what the option takes.
template <typename T>
T checked(const std::string& option, const std::string& given, Result<T> value) {
  if (!value) {
    throw FatalError(option + ": cannot use " + quote_value(given) + ": " +
                     value.error().describe());
  }
  return *value;
}

template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& option, const std::string& text, Parse parse) {
  std::vector<T> values;
  for (const auto& item : split(text, ',')) {
    const std::string given(trim(item));
    values.push_back(checked<T>(option, given, parse(given)));
  }
  return values;
}

Result<uint64_t> size_option(const std::string& text, Result<uint64_t> (*check)(uint64_t)) {
  auto size = parse_size(text);
  if (!size) return content_error("not a size (4k, 1m, or a number of bytes)");
  return check(*size);
}

Result<std::chrono::microseconds> duration_option(
    const std::string& text,
    Result<std::chrono::microseconds> (*check)(std::chrono::microseconds)) {
  auto duration = parse_duration(text);
  if (!duration) return content_error("not a duration (500ms, 5s)");
  return check(*duration);
}

Result<uint32_t> depth_option(const std::string& text) {
  auto depth = parse_uint(text);
  if (!depth || *depth > static_cast<uint64_t>(INT64_MAX)) return content_error("not a number");
  return check_iodepth(static_cast<int64_t>(*depth));
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

ProfileOverrides ProbeArguments::overrides() const {
  ProfileOverrides overrides;
  if (!engines.empty()) {
    overrides.engines = parse_list<EngineMode>("--engine", engines, EngineMode::parse);
  }
  if (!rw.empty()) {
    overrides.rw = parse_pattern(rw);
    if (!overrides.rw)
      throw FatalError("--rw: expected randread, randwrite, read, write or randrw");
  }
  if (!block_sizes.empty()) {
    overrides.block_sizes = parse_list<uint64_t>("--bs", block_sizes, [](const std::string& item) {
      return size_option(item, check_block_size);
    });
  }
  if (!iodepths.empty())
    overrides.iodepths = parse_list<uint32_t>("--iodepth", iodepths, depth_option);
  if (!completion_wait.empty()) {
    overrides.completion_wait = parse_completion_wait(completion_wait);
    if (!overrides.completion_wait) throw FatalError("--completion-wait: sleep or spin");
  }
  if (!runtime.empty()) {
    overrides.runtime = checked("--runtime", runtime, duration_option(runtime, check_runtime));
  }
  if (!ramp.empty()) overrides.ramp = checked("--ramp", ramp, duration_option(ramp, check_ramp));
  if (!size.empty())
    overrides.file_size = checked("--size", size, size_option(size, check_file_size));
  struct CountOption {
    const char* option;
    const std::optional<int64_t>& given;
    std::optional<uint32_t>& field;
    Result<uint32_t> (*check)(int64_t);
  };
  for (const auto& count :
       {CountOption{"--rwmixread", rwmixread, overrides.rwmixread, check_rwmixread},
        CountOption{"--batch-submit", batch_submit, overrides.batch_submit, check_batch_submit},
        CountOption{"--batch-complete-min", batch_complete_min, overrides.batch_complete_min,
                    check_batch_complete_min},
        CountOption{"--batch-complete-max", batch_complete_max, overrides.batch_complete_max,
                    check_batch_complete_max}}) {
    if (count.given) {
      count.field = checked(count.option, std::to_string(*count.given), count.check(*count.given));
    }
  }
  overrides.uring_modes = {
      .iopoll = iopoll, .sqpoll = sqpoll, .fixedbufs = fixedbufs, .regfiles = regfiles};
  return overrides;
}

Profile ProbeArguments::resolve_profile() const {
  auto loaded = load_profile(profile);
  if (!loaded) throw FatalError(loaded.error().describe());
  Profile resolved = std::move(*loaded);
  if (auto status = apply_overrides(resolved, overrides()); !status) {
    throw FatalError(resolved.source + " with the options given: " + status.error().describe());
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
