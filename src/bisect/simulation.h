#pragma once
// The bisect's proof under noise: synthetic candidate series with a step regression at a random
// candidate, samples drawn with a chosen coefficient of variation, optional candidates that never
// boot, searched by the same Search the real loop uses, and, in the same run, by a single-sample
// git-bisect-style baseline. scripts/bench/bisect-sim prints the results.

#include <cstdint>
#include <functional>

#include "bisect/search.h"

namespace kdrift {

struct SimulationSetting {
  int candidates = 64;       // index 0 is the good endpoint, the last one the bad endpoint
  double regression = 0.10;  // the metric drops by this fraction from the culprit on
  double cv = 0.05;          // per-sample noise, lognormal with this spread
  double crash_rate = 0;     // chance that a candidate between the endpoints never boots
  int bisects = 1000;
  std::uint64_t seed = 1;
  double boot_cv = 0;  // a factor drawn once a boot (lognormal) that all its samples share
};

struct SimulationResult {
  int bisects = 0;
  int wrong = 0;      // named a culprit that is not the first bad (nor among the skipped ones
                      // reported as possible)
  int ambiguous = 0;  // right, but only together with skipped candidates
  int refused = 0;    // refused: the calibration found the step beyond what --max-boots resolves
                      // at the noise and drift, or the budget ran out before the answer
  double median_boots = 0;
  double p90_boots = 0;
  double median_samples = 0;
};

struct DriveResult {
  int boots = 0;    // a fresh boot, or a switch to another candidate, counts one
  int samples = 0;  // probe runs taken
  Action last;      // what next() said at the end: kDone or kRefused
};

// Runs a search to its end as the real loop would, with simulated boots: boots(candidate), called
// once a boot, says whether the candidate comes back (false: a crash), sample(candidate, index)
// gives the index-th sample of the current boot.
DriveResult drive_search(Search& search, const std::function<bool(std::size_t)>& boots,
                         const std::function<double(std::size_t, int)>& sample);

SimulationResult simulate_search(const SimulationSetting& setting, const SearchConfig& config);

// One sample per candidate and per endpoint, classified by the nearer endpoint value, crashing
// candidates skipped: what a script driving git bisect run with one probe per boot does.
SimulationResult simulate_single_sample(const SimulationSetting& setting);

}  // namespace kdrift
