#pragma once
// The probe's command-line options, shared by `probe`, `capture --probe` and `audit`: a profile
// and the flags that override its fields.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iobench/override_flags.h"
#include "iobench/profile.h"
#include "iobench/runner.h"

namespace kdrift {

// Rounds of the quick profile in a capture or audit: ~20 s in all, under the 30 s a check
// before a change may take, and enough for diff to see the spread between rounds.
inline constexpr int kSnapshotRounds = 3;

// The override fields (OverrideFlags) are this struct's own, as the options fill them.
struct ProbeArguments : OverrideFlags {
  std::string profile = std::string(kDefaultProfile);
  std::string target = ".";
  bool allow_write = false;
  std::string precondition;
  bool no_capabilities = false;
  bool no_trace = false;
  std::string cpus;
  std::string numa;
  // capture and audit default to kSnapshotRounds; probe and bisect's measurements to 1.
  int rounds = 1;

  // Target and safety options only (capture, audit).
  void add_target_options(CLI::App& command);
  // Every override (probe).
  void add_override_options(CLI::App& command);

  // The profile with the overrides applied; usage errors are fatal (exit 2) and name the option.
  // Values are checked by iobench/job_validation.h, as a profile's are.
  Profile resolve_profile() const;
  ProbeOptions resolve_options(const Profile& profile) const;
};

// Runs the probe, printing a progress line on stderr when it is a terminal. Fatal on what stops
// the whole run (target refused or missing).
Json run_probe_or_exit(const Profile& profile, const ProbeOptions& options);

}  // namespace kdrift
