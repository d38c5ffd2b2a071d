#pragma once
// Whether a candidate kernel is good or bad on a performance metric, from its boots: each boot's
// runs (one value per probe run: a job's median per-second IOPS, or a latency percentile) make
// one level, the mean log of its runs, and boots are the unit (boot_levels.h), because what a
// boot does to all of its runs alike is drift no number of runs inside it averages out.
//
// A candidate is bad when its level lies on the bad side of the midpoint between the endpoints'
// levels and differs from the good endpoint's at alpha; good in the mirror case; unknown
// otherwise, and the search takes more: more runs in the same boot while its runs' noise still
// outweighs the drift, else another boot of it or of the endpoint it is measured against.

#include <string>

#include "bisect/boot_levels.h"

namespace kdrift {

// The three states every comparison of kdrift's has (model/verdict.h), in a bisect's words: like
// the good endpoint, like the bad one, or inconclusive, which is never a guess: the search takes
// more runs or boots of it, up to the budget, and a candidate still inconclusive then is skipped
// ("not told apart").
enum class CandidateVerdict { kGood, kBad, kInconclusive };

const char* verdict_name(CandidateVerdict verdict);

struct Judgement {
  CandidateVerdict verdict = CandidateVerdict::kInconclusive;
  double p_vs_good = 1;  // the candidate's level against the good endpoint's (boot_levels.h)
  double p_vs_bad = 1;
  double level = 0;    // its level (boot_levels.h: estimate_level), as a value of the metric
  std::string reason;  // why, with the numbers
};

// The direction (higher or lower is better) needs no flag: the references define it.
Judgement judge(const BootLevels& candidate, const BootLevels& good, const BootLevels& bad,
                const DriftEstimate& drift, double alpha);

// The significance level of a candidate's look-th judgement (1, 2, ...): the bisect's alpha
// over the looks with weight 1 / (look (look + 1)), which sums to it however many looks the
// drift makes a candidate take and gives most of it to the first looks, where most verdicts
// fall when boots drift little; and shared (Bonferroni) over `share` candidates: the answer
// rests on two verdicts only (the last good candidate's and the culprit's, search.h), and those
// take the share of the ~log2 N candidates a binary search visits. A verdict needs the
// candidate on one side and p below this, so one that is wrong in its direction has half this
// chance at most; the other half covers the drift estimate's own error (boot_levels.h).
double look_alpha(double alpha, int share, int look);

// What a search will spend, for its calibration.
struct SearchShape {
  double alpha = 0.01;      // the whole bisect's
  int visits = 1;           // candidates a binary search visits (~log2 of those between)
  int first_samples = 10;   // runs in a candidate's boot
  int reference_runs = 15;  // runs in an endpoint's boot
  int max_boots = 0;        // the whole bisect's budget
  int boots_used = 0;       // so far, crashes included
};

// Whether the budget resolves the change at the noise and drift the endpoints' boots showed, and
// how sure that is. The drift from a few boots is rough (its 90 % bounds span a factor of 3 to 10
// at two or three boots a side), and a bisect started on a drift that came out low by chance
// would place candidates on boots that drift more than it allows: so the search starts only when
// the budget covers its plan even at the drift's upper bound, is refused only when it cannot
// cover it even at the lower bound, and otherwise waits for another reference boot.
struct Calibration {
  enum class Decision { kMoreReferences, kSearch, kRefuse };
  Decision decision = Decision::kMoreReferences;
  double effect = 0;       // |ln(level bad / level good)|
  double p_endpoints = 1;  // the endpoints' levels compared
  double noise = 0;        // SD of a run's log value inside its boot
  double drift = 0;        // SD of a boot's log level beyond its runs' noise
  double drift_low = 0;    // its 90 % confidence bounds
  double drift_high = 0;
  // The whole bisect's boots (references, ~log2 N candidates, a retest) that make each verdict
  // at 75 % power, the references growing with the candidates, at the drift's estimate and at
  // its bounds; 0 when no plan within ten times the budget can.
  int boots_needed = 0;
  int boots_needed_low = 0;
  int boots_needed_high = 0;
  int max_boots = 0;
  // Plans the statistics were weighed for, over the three plans: the calibration's cost, which
  // every step of a bisect pays again and which stays a few thousand whatever the budget.
  int plans_weighed = 0;
  std::string reason;  // the numbers, for the refusal or the start message
};

// Before bisecting: whether the budget lets the search tell the endpoints apart and place every
// candidate it visits. final_call: no more reference boots will come (the cap), so the drift's
// estimate decides what its bounds leave open.
Calibration calibrate(const BootLevels& good, const BootLevels& bad, const DriftEstimate& drift,
                      const SearchShape& shape, bool final_call);

}  // namespace kdrift
