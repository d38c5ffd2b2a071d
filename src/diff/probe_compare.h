#pragma once
// probe.regression's numbers: each job present in both snapshots, matched by name, compared on
// its per-second IOPS samples and latency percentiles: ratio of medians with a bootstrap interval
// at 1 - alpha, widened by what the runs' own spread says a re-run could move it (the run-to-run
// allowance, from rounds when both sides have them), judged three ways by diff/three_way.h:
// changed, equivalent within kEquivalenceMargin, or inconclusive with the rounds (or seconds) a
// side that would decide it. The rank test's p and the 95 % bootstrap interval describe the runs
// themselves and are reported beside it.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "diff/three_way.h"
#include "model/job_result.h"
#include "model/verdict.h"
#include "snapshot/snapshot.h"

namespace kdrift {

inline constexpr double kDefaultAlpha = 0.01;

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
  Verdict verdict;  // as the entry's verdict members say it
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
// log values, so the spread between boots is the noise; an inconclusive job counts the samples
// that would decide it in `unit` (snapshots, or a fleet's hosts). One snapshot a side is
// compare_probes.
ProbeComparison compare_probe_sets(const std::vector<const Json*>& a,
                                   const std::vector<const Json*>& b, double alpha = kDefaultAlpha,
                                   SampleUnit unit = SampleUnit::kSnapshots);

}  // namespace kdrift
