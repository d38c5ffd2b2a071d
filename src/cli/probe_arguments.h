#pragma once
// The probe's command-line options, shared by `probe`, `capture --probe` and `audit`: a profile
// and the flags that override its fields.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "probe/profile.h"
#include "probe/runner.h"

namespace kdrift {

struct ProbeArguments {
  std::string profile = std::string(kDefaultProfile);
  std::string target = ".";
  bool allow_write = false;
  std::string precondition;
  std::string engines;
  bool iopoll = false;
  bool sqpoll = false;
  bool fixedbufs = false;
  bool regfiles = false;
  int sqpoll_cpu = -1;
  std::string rw;
  std::optional<int64_t> rwmixread;
  std::string block_sizes;
  std::string iodepths;
  std::string runtime;
  std::string ramp;
  std::string size;
  std::optional<int64_t> batch_submit;
  std::optional<int64_t> batch_complete_min;
  std::optional<int64_t> batch_complete_max;
  std::string completion_wait;
  bool no_capabilities = false;
  bool no_trace = false;
  std::string cpus;
  std::string numa;

  // Target and safety options only (capture, audit).
  void add_target_options(CLI::App& command);
  // Every override (probe).
  void add_override_options(CLI::App& command);

  // The profile with the overrides applied; usage errors are fatal (exit 2) and name the option.
  // Values are checked by probe/job_validation.h, as a profile's are.
  Profile resolve_profile() const;
  ProbeOptions resolve_options(const Profile& profile) const;

 private:
  ProfileOverrides overrides() const;
};

// Runs the probe, printing a progress line on stderr when it is a terminal. Fatal on what stops
// the whole run (target refused or missing).
Json run_probe_or_exit(const Profile& profile, const ProbeOptions& options);

}  // namespace kdrift
