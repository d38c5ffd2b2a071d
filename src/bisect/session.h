#pragma once
// A bisect as its journal tells it: the start event (candidates, endpoints, metric, settings)
// and every later event (samples measured on a boot, a boot that did not come back, a verdict
// said by the user or a command) replayed, in order, into a Search. Replaying the same journal
// always gives the same next step, which is what makes `step` safe to kill and run again and
// `replay FILE` reproduce a finished bisect.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bisect/candidates.h"
#include "bisect/cmdline_candidates.h"
#include "bisect/kernel_source.h"
#include "bisect/search.h"
#include "boot/boot_method.h"
#include "model/bisect_metric.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

struct BisectStart {
  std::string id;  // goes into the candidate's command line as kdrift.bisect=<id>
  std::vector<Candidate> candidates;
  std::size_t good = 0;
  std::size_t bad = 0;
  BisectMetric metric;
  std::string mode;    // "kexec", "reboot", "manual" or "command"
  LoaderPlace loader;  // mode "reboot": the loader that boots each candidate once
  // What `step` measures on: the probe profile run before a finding is judged (empty: a capture
  // alone) and the probe's target device or file.
  std::string profile;
  std::string target;
  // --cmdline: the good command line and the changes to the bad one, candidate k carrying the
  // first k; after the bisect, the isolation (isolation.h) tests other sets of them.
  std::string cmdline_good;
  std::vector<CmdlineChange> cmdline_changes;
  // Kernels kdrift builds: commits or configs of a git tree (kernel_source.h).
  std::optional<KernelSource> kernel_source;
  SearchConfig config;
};

Json start_event(const BisectStart& start);
Json samples_event(const std::string& candidate, const std::vector<double>& values);
Json crash_event(const std::string& candidate);
// verdict: "good", "bad" or "skip"; by: "user", "run" or "step".
Json verdict_event(const std::string& candidate, const std::string& verdict, const std::string& by);
// Written, and synced, before a kexec into the candidate: attempt numbers count from 1 and go
// into the command line's bisect token; boot_id is the boot that loaded the kexec.
Json attempt_event(const std::string& candidate, int attempt, const std::string& boot_id);
// Written by step on the boot that came up as an attempted candidate, before it measures: a boot
// that never wrote it did not boot (a panic, a hang, no root disk); one that did and never
// recorded a measurement crashed while measuring.
Json booted_event(const std::string& candidate, int attempt, const std::string& boot_id);
// The reason a crash event gives when its candidate never reached step.
inline constexpr std::string_view kDidNotBoot = "did not boot";
// Whether step boots the candidates itself (kexec or a loader's one-shot entry), and so must
// find, on the next boot, whether the attempted candidate came up.
bool boots_candidates(const std::string& mode);
// A candidate's build (a kernel bisect): "built", "failed" or "timed-out"; a build that did not
// produce a kernel makes the candidate untestable, as git bisect's skip does.
struct CandidateBuild {
  std::string outcome;
  std::string release;
  double seconds = 0;
  bool ccache = false;
  std::string why;  // what failed, with the log's last lines
};
Json build_event(const std::string& candidate, const CandidateBuild& build);
// A candidate made during the bisect (an isolation test), added after the listed ones.
Json candidate_event(const Candidate& candidate);
// Samples, verdict and crash events may carry more: "boot_id" (the boot that measured),
// "attempt", "details" (a step's evidence: the finding's signature, the snapshot), "why".

struct Attempt {
  int number = 0;
  std::size_t candidate = 0;
  std::string boot_id;
  std::string arrived_boot;  // the candidate's boot that reached step (booted_event), if any
};

struct Session {
  BisectStart start;
  Search search;
  std::vector<Attempt> attempts;
  // The last attempt while nothing has been recorded about its candidate since: the boot that
  // must have come up as that candidate, or it did not come back.
  std::optional<Attempt> pending;
  std::vector<std::string> measured_boots;  // boot ids a measurement or a step verdict came from
  std::vector<Json> details;                // per candidate: the last event's "details", or null
  std::vector<std::optional<CandidateBuild>> builds;  // per candidate: its last build
  // Per candidate: every crash's reason (kDidNotBoot, or "crashed" when the event gives none).
  std::vector<std::vector<std::string>> crash_reasons;
};

// Errors name source and the event's position: no start first, an unknown event or candidate, a
// malformed field.
Result<Session> replay(const std::vector<Json>& events, const std::string& source);

// The index of a candidate by name, or an error naming the known ones.
Result<std::size_t> candidate_index(const BisectStart& start, const std::string& name);

}  // namespace kdrift
