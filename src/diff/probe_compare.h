#pragma once
// probe.regression's numbers: each job present in both snapshots, matched by name, compared on
// its per-second IOPS samples: ratio of medians with a bootstrap 95 % confidence interval and a
// two-sided Mann–Whitney U test. A job is a regression only when the test rejects at alpha, the
// interval lies wholly below 1, the median moved by at least kMinimumEffect and by more than the
// runs' own spread says a re-run could move it (the run-to-run allowance); "no significant
// change" and "too few samples to tell" are verdicts of their own.

#include "snapshot/snapshot.h"

namespace kdrift {

inline constexpr double kDefaultAlpha = 0.01;
// Below this a change is not worth a finding even when it is statistically real (a 2 % drift on
// a 60-sample run is significant and irrelevant).
inline constexpr double kMinimumEffect = 0.05;

// The report's "probe" member: {alpha, jobs[...]} or {unavailable: why}. a and b are the
// snapshots' probe sections (either may be null).
Json compare_probes(const Json* a, const Json* b, double alpha = kDefaultAlpha);

}  // namespace kdrift
