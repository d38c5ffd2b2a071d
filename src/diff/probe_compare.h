#pragma once
// probe.regression's numbers: each job present in both snapshots, matched by name, compared on
// its per-second IOPS samples: ratio of medians with a bootstrap 95 % confidence interval and a
// two-sided Mann–Whitney U test. A job is a regression only when the test rejects at alpha, the
// interval lies wholly below 1, the median moved by at least kMinimumEffect and by more than the
// runs' own spread says a re-run could move it (the run-to-run allowance); "no significant
// change" and "too few samples to tell" are verdicts of their own.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/job_result.h"
#include "snapshot/snapshot.h"

namespace kdrift {

inline constexpr double kDefaultAlpha = 0.01;
// Below this a change is not worth a finding even when it is statistically real (a 2 % drift on
// a 60-sample run is significant and irrelevant).
inline constexpr double kMinimumEffect = 0.05;

// Whether the two snapshots were taken in one boot. Rounds inside a boot show how far a re-run
// moves; they cannot show how far a re-boot moves (memory layout, an emulator's placement), which
// in kdrift's QEMU lab was several times the rounds' spread. Across boots the per-second
// estimate stays a floor under the rounds' (on quiet hardware it is below the minimum effect).
enum class Boots { kSame, kDifferent };

// One job compared: what the job is, typed (ranking and the HTML report's charts ask it), and its
// entry of the report's probe.jobs[]. The facts are of the entry whose header the entry shows: B's,
// or A's for a job only in A.
struct JobComparison {
  JobFacts job;
  Json entry;
};

// The report's "probe" member as built: the comparison's own members, its jobs, or why there is
// nothing to compare.
struct ProbeComparison {
  std::optional<std::string> unavailable;
  Json summary = Json::object();  // alpha, run_spread, unit, snapshots: every member but jobs
  std::vector<JobComparison> jobs;

  // {unavailable: why}, or the summary's members and jobs[...].
  Json to_json() const;
};

// a and b are the snapshots' probe sections (either may be null).
ProbeComparison compare_probes(const Json* a, const Json* b, double alpha = kDefaultAlpha,
                               Boots boots = Boots::kDifferent);

// The most snapshots a side of a diff may hold: a bound on the work (every pair's rules) and on
// what a report lists.
inline constexpr std::size_t kMaxSnapshotsPerSide = 16;

// The same member for several snapshots a side (boots or hosts as samples; null entries are
// snapshots without a probe): each job is compared with its snapshots as the unit, one value
// per snapshot (its entry's main-direction IOPS and latency percentiles), by Welch's t test on
// log values, so the spread between boots is the noise. One snapshot a side is compare_probes.
ProbeComparison compare_probe_sets(const std::vector<const Json*>& a,
                                   const std::vector<const Json*>& b, double alpha = kDefaultAlpha);

}  // namespace kdrift
