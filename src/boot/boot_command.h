#pragma once
// A boot kdrift does not do itself: the user's command boots the candidate somewhere (a VM, a
// board over ssh, a lab machine), measures it there and leaves what it measured in a directory
// kdrift gave it. The command is a program run without a shell and without arguments, the
// candidate described in its environment, so no part of a candidate's name or command line is
// ever re-split or expanded on the way.
//
// Its exit status follows `git bisect run`: 0 booted and reported, 125 the candidate could not
// be tested (it did not boot, panicked, hung or came up as another kernel), anything else a
// failure of the command itself, which stops the bisect rather than judging the candidate. A
// command that outlives its time is a candidate that did not come back.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"
#include "util/trusted_dir.h"

namespace kdrift {

struct BootCommandRequest {
  std::string command;  // the program's path
  std::vector<std::pair<std::string, std::string>> environment;
  std::chrono::seconds timeout{1800};
  // Where the command leaves one file per measurement (emptied before it runs) and where its
  // output goes: both kdrift's own, inside the bisect's state directory.
  const TrustedDir* results = nullptr;
  std::string log_path;
  // A bisect without a measurement: the exit status is the verdict, as `git bisect run` reads it
  // (0 good, 1-127 bad, 125 skip, 128 and above a failure), and no files are expected.
  bool exit_status_is_verdict = false;
};

struct BootCommandOutcome {
  enum class Kind { kReported, kNotBooted, kFailed };
  Kind kind = Kind::kFailed;
  int exit_status = 0;
  bool timed_out = false;
  // The files the command left, by name, in name order: regular files only, at most
  // kMaxBootResults of them.
  std::vector<std::string> results;
  std::string why;  // for kNotBooted and kFailed, for a person
};

inline constexpr std::size_t kMaxBootResults = 1000;

// Runs the command as above. An error only when it could not be run at all (not executable,
// the log not writable); everything the command did is an outcome.
Result<BootCommandOutcome> run_boot_command(const BootCommandRequest& request);

}  // namespace kdrift
