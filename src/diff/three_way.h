#pragma once
// The one rule that turns a ratio's interval into a three-way verdict (model/verdict.h), for
// every comparison of measurements kdrift makes: probe jobs one snapshot a side or several, and
// a fleet's groups, whose probe jobs are compared as snapshots a side.
//
// The interval is at confidence 1 - alpha and holds every noise the comparison knows of (within
// the run and from run to run), so interval and verdict always agree:
// - changed: the interval excludes 1 and the ratio lies outside the equivalence band;
// - equivalent: the whole interval lies inside the band (two one-sided tests at alpha / 2 each,
//   so stricter than TOST's usual 1 - 2 alpha interval: one interval is printed for all three);
// - inconclusive: neither, with the samples a side that would decide it at the noise observed.

#include <cstddef>

#include "model/verdict.h"

namespace kdrift {

// Power the samples-to-decide estimate is made for: taken, that many decide the verdict nine
// times in ten if the noise and the ratio are what this comparison saw.
inline constexpr double kDecidingPower = 0.9;
// Beyond this many samples a side, more samples are no practical answer.
inline constexpr std::size_t kMaxDecidingSamples = 1000;

struct RatioEstimate {
  double ratio = 1;  // B over A
  double low = 1;    // the interval, at `confidence`, every known noise included
  double high = 1;
  double confidence = 0.99;
  // The variance of the log ratio one sample a side would give (the sides' per-sample variances
  // summed): the ratio's standard error with n samples a side is sqrt(unit_variance / n).
  double unit_variance = 0;
  SampleUnit unit = SampleUnit::kRounds;
  std::size_t now = 1;  // samples a side behind the interval (the smaller side)
};

// higher_is_better: IOPS (a ratio below 1 is a regression); latency is the opposite.
Verdict decide_ratio(const RatioEstimate& estimate, bool higher_is_better,
                     double margin = kEquivalenceMargin);

// The samples a side that would decide a comparison whose ratio is `ratio` at the noise
// `unit_variance` (RatioEstimate), at `confidence` and kDecidingPower: the fewest n whose
// interval would exclude 1 (a ratio outside the band) or fit inside the band (a ratio inside it).
DecidingSamples samples_to_decide(double ratio, double unit_variance, SampleUnit unit,
                                  std::size_t now, double confidence, double margin);

}  // namespace kdrift
