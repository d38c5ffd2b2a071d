#pragma once
// A probe run: open the target, check what this boot can do (a few ms of canary reads per engine
// mode), then run every job of the profile and report each as ok, failed (with the cause) or
// skipped (with the reason). The result is the snapshot's "probe" section.

#include <functional>
#include <string>

#include "iobench/cpu_affinity.h"
#include "iobench/profile.h"
#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct ProbeOptions {
  std::string target = ".";
  bool allow_write = false;
  bool precondition_discard = false;  // the profile's or --precondition discard
  Placement placement;
  // The canary matrix costs ~0.1 s of CPU; scripts that run many short probes of one known
  // mode may leave it out (the section then says so under "unavailable").
  bool capabilities = true;
  // The block-layer BPF programs around each job (trace section); off with --no-trace.
  bool trace = true;
  // Every job run this many times, interleaved (iobench/rounds.h); 1 keeps the entries as they
  // were before rounds existed.
  uint32_t rounds = 1;
  // Called before each job ("[3/40] io_uring randread 4k qd16"), for a progress line.
  std::function<void(size_t index, size_t count, const std::string& job)> progress;
};

// Errors only for what stops the whole run (the target cannot be opened or is refused); jobs
// that fail are reported inside the section.
Result<Json> run_probe(const Profile& profile, const ProbeOptions& options, const SysRoot& root);

}  // namespace kdrift
