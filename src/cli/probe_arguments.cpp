#include "cli/probe_arguments.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <type_traits>
#include <variant>

#include "iobench/rounds.h"
#include "util/fatal.h"
#include "util/text.h"

namespace kdrift {
namespace {

// An option and where CLI11 stores it; a bool is a flag.
struct OptionSpec {
  const char* name;
  std::variant<std::string*, bool*, int*, std::optional<int64_t>*> field;
  const char* help;
};

// Registers the options in the order given, which is the order --help lists them in.
void add_options(CLI::App& command, std::initializer_list<OptionSpec> options) {
  for (const auto& option : options) {
    std::visit(
        [&](auto* field) {
          if constexpr (std::is_same_v<decltype(field), bool*>) {
            command.add_flag(option.name, *field, option.help);
          } else {
            command.add_option(option.name, *field, option.help);
          }
        },
        option.field);
  }
}

}  // namespace

void ProbeArguments::add_target_options(CLI::App& command) {
  add_options(
      command,
      {{"--target", &target,
        "Directory (a temporary file is created there), file or raw block device "
        "(default: the current directory)"},
       {"--allow-write", &allow_write,
        "Allow writes to an existing file or to a raw device that holds no signature, "
        "is not mounted and has no holders"},
       {"--no-trace", &no_trace, "Do not count what the block layer did during each job (BPF)"},
       {"--rounds", &rounds,
        "Run every job N times, interleaved, so drift lands on all alike; each job reports its "
        "median round and keeps every round's figures (default 3 in capture and audit, 1 in "
        "probe)"}});
}

void ProbeArguments::add_override_options(CLI::App& command) {
  add_options(command,
              {{"--profile", &profile, "Built-in profile name or a TOML file (default quick)"}});
  add_target_options(command);
  add_options(command,
              {{"--precondition", &precondition,
                "none or discard (BLKDISCARD of a write-allowed raw device first)"},
               {"--engine", &engines,
                "Engines, comma-separated: io_uring, libaio, psync, pvsync2, with +iopoll, "
                "+sqpoll, +fixedbufs, +regfiles, +hipri"},
               {"--iopoll", &iopoll, "io_uring engines poll for completions (IORING_SETUP_IOPOLL)"},
               {"--sqpoll", &sqpoll, "io_uring engines use a submission polling thread"},
               {"--fixedbufs", &fixedbufs, "io_uring engines use registered buffers"},
               {"--regfiles", &regfiles, "io_uring engines use a registered file"},
               {"--sqpoll-cpu", &sqpoll_cpu, "Pin the SQPOLL thread to CPU"},
               {"--rw", &rw, "randread, randwrite, read, write or randrw"},
               {"--rwmixread", &rwmixread, "Percent reads in randrw"},
               {"--bs", &block_sizes, "Block sizes, comma-separated (4k,8k,...)"},
               {"--iodepth", &iodepths, "Queue depths, comma-separated (1,4,16,...)"},
               {"--runtime", &runtime, "Measured time per job (5s, 500ms)"},
               {"--ramp", &ramp, "Unmeasured warm-up per job"},
               {"--size", &size, "Size of the temporary file in a directory target"},
               {"--batch-submit", &batch_submit, "I/Os per submit call (0: all free slots)"},
               {"--batch-complete-min", &batch_complete_min, "Completions waited for per reap"},
               {"--batch-complete-max", &batch_complete_max,
                "Completions reaped at most per pass (0: all; default: as many as "
                "--batch-complete-min, as fio)"},
               {"--completion-wait", &completion_wait,
                "sleep (as fio) or spin (look for completions a few microseconds before "
                "sleeping) once the queue is full"},
               {"--like-fio", &like_fio,
                "fio's defaults: random offsets from a random map (every block once per pass), "
                "writes stamped per 512-byte sector with offset and time (scramble_buffers), "
                "SQPOLL completions reaped by spinning in user space"},
               {"--no-capabilities", &no_capabilities,
                "Skip the canary reads through every mode (~0.1 s of CPU)"}});
  auto* cpus_option = command.add_option("--cpus", cpus, "Pin the probe to this cpu list");
  command.add_option("--numa", numa, "Pin to a node: local, remote (to the device) or N")
      ->excludes(cpus_option);
}

Profile ProbeArguments::resolve_profile() const {
  auto loaded = load_profile(profile);
  if (!loaded) throw FatalError(loaded.error().describe());
  Profile resolved = std::move(*loaded);
  auto overrides = parse_override_flags(*this);
  if (!overrides) throw FatalError(overrides.error().describe());
  if (auto status = apply_overrides(resolved, *overrides); !status) {
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
  if (rounds < 1 || rounds > static_cast<int>(kMaxRounds)) {
    throw FatalError("--rounds: from 1 to " + std::to_string(kMaxRounds) + ", not " +
                     std::to_string(rounds));
  }
  options.rounds = static_cast<uint32_t>(rounds);
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
