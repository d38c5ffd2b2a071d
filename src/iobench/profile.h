#pragma once
// Probe workloads as data: a profile (profiles/<name>.toml, compiled in, or any TOML file) is a
// list of workloads, each a matrix of engines x block sizes x queue depths. Command-line
// overrides replace a field in every workload before the matrix is expanded into jobs.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/probe_job.h"
#include "util/result.h"

namespace kdrift {

enum class Precondition { kNone, kDiscard };

struct Workload {
  std::string name;
  std::vector<EngineMode> engines;
  Pattern rw = Pattern::kRandRead;
  uint32_t rwmixread = 50;
  std::vector<uint64_t> block_sizes;
  std::vector<uint32_t> iodepths;
  uint32_t batch_submit = 1;
  uint32_t batch_complete_min = 1;
  std::optional<uint32_t> batch_complete_max;  // unset: batch_complete_min, as fio
  CompletionWait completion_wait = CompletionWait::kSleep;
  bool like_fio = false;  // ProbeJob::like_fio
  std::optional<std::chrono::microseconds> ramp;
  std::optional<std::chrono::microseconds> runtime;
  std::optional<int> sqpoll_cpu;  // command line only (--sqpoll-cpu)
};

struct Profile {
  std::string name;
  std::string description;
  std::string source;                        // "embedded" or the file it was read from
  uint64_t file_size = uint64_t{256} << 20;  // of the file created in a directory target
  std::chrono::microseconds ramp{std::chrono::seconds(1)};
  std::chrono::microseconds runtime{std::chrono::seconds(5)};
  Precondition precondition = Precondition::kNone;
  std::vector<Workload> workloads;

  // Every job, in profile order: workload, then engine, block size, queue depth.
  std::vector<ProbeJob> jobs() const;
  bool writes() const;
};

// io_uring modes the command line turns on in every io_uring engine of the profile.
struct UringModes {
  bool iopoll = false;
  bool sqpoll = false;
  bool fixedbufs = false;
  bool regfiles = false;
  std::optional<int> sqpoll_cpu;  // the CPU every SQPOLL thread is pinned to
};

// Command-line values that replace the profile's in every workload, each already within
// iobench/job_validation.h's bounds (iobench/override_flags.h reads them from the flags).
struct ProfileOverrides {
  std::optional<std::vector<EngineMode>> engines;
  std::optional<Pattern> rw;
  std::optional<uint32_t> rwmixread;
  std::optional<std::vector<uint64_t>> block_sizes;
  std::optional<std::vector<uint32_t>> iodepths;
  std::optional<uint32_t> batch_submit;
  std::optional<uint32_t> batch_complete_min;
  std::optional<uint32_t> batch_complete_max;
  std::optional<CompletionWait> completion_wait;
  bool like_fio = false;  // --like-fio turns it on in every workload; it never turns it off
  std::optional<std::chrono::microseconds> ramp;
  std::optional<std::chrono::microseconds> runtime;
  std::optional<uint64_t> file_size;
  UringModes uring_modes;
};

// Replaces the fields, then checks each workload as parse_profile does (check_workload): a
// combination no single value shows is an error naming the workload.
Status apply_overrides(Profile& profile, const ProfileOverrides& overrides);

// source names the file in error messages ("profiles/quick.toml"). Every value is checked
// against iobench/job_validation.h; an error names the file, line, workload and key.
Result<Profile> parse_profile(std::string_view text, const std::string& name,
                              const std::string& source);
// A name of a compiled-in profile, or a path to a TOML file (anything with '/' or ".toml"), read
// as util/toml_reader.h reads every TOML file: a regular file within its size and depth limits.
Result<Profile> load_profile(const std::string& name_or_path);
// Compiled-in profiles: name and description, sorted by name.
Result<std::vector<Profile>> embedded_profiles();

inline constexpr std::string_view kDefaultProfile = "quick";

}  // namespace kdrift
