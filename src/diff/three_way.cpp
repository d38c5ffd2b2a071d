#include "diff/three_way.h"

#include <algorithm>
#include <cmath>

#include "diff/statistics.h"

namespace kdrift {
namespace {

// The band's half-width in log terms: [1 - margin, 1 / (1 - margin)].
double log_margin(double margin) {
  return -std::log1p(-margin);
}

}  // namespace

DecidingSamples samples_to_decide(double ratio, double unit_variance, SampleUnit unit,
                                  std::size_t now, double confidence, double margin) {
  DecidingSamples out{unit, now, 0, true};
  const double distance = std::abs(std::log(ratio));
  const double band = log_margin(margin);
  // Outside the band the interval must come to exclude 1, inside it must come to fit the band;
  // the room either has is what the interval's half-width must shrink below, with power to spare.
  const double room = distance > band ? distance : band - distance;
  if (!std::isfinite(room) || !std::isfinite(unit_variance) || unit_variance <= 0 ||
      room < 1e-3 * band) {
    return out;
  }
  const auto decides = [&](std::size_t n) {
    const double df = 2.0 * static_cast<double>(n) - 2;
    const double reach =
        student_t_quantile(1 - (1 - confidence) / 2, df) + student_t_quantile(kDecidingPower, df);
    return reach * std::sqrt(unit_variance / static_cast<double>(n)) <= room;
  };
  // The half-width shrinks as n grows, so the fewest n is found by doubling, then halving.
  std::size_t low = std::max<std::size_t>(now + 1, 2);
  std::size_t high = low;
  while (!decides(high)) {
    if (high >= kMaxDecidingSamples) return out;
    low = high + 1;
    high = std::min(2 * high, kMaxDecidingSamples);
  }
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (decides(middle)) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  out.needed = high;
  out.beyond_reach = false;
  return out;
}

Verdict decide_ratio(const RatioEstimate& estimate, bool higher_is_better, double margin) {
  const RatioBounds bounds{estimate.ratio, estimate.low, estimate.high, estimate.confidence};
  const bool valid = std::isfinite(estimate.ratio) && estimate.ratio > 0 &&
                     !std::isnan(estimate.low) && !std::isnan(estimate.high);
  if (!valid) {
    return Verdict::inconclusive(DecidingSamples{estimate.unit, estimate.now, 0, true});
  }
  const double band = log_margin(margin);
  const double distance = std::abs(std::log(estimate.ratio));
  const bool excludes_one = estimate.low > 1 || estimate.high < 1;
  if (excludes_one && distance > band) {
    const bool lower = estimate.ratio < 1;
    return Verdict::changed(
        lower == higher_is_better ? ChangeDirection::kRegression : ChangeDirection::kImprovement,
        bounds);
  }
  if (estimate.low >= std::exp(-band) && estimate.high <= std::exp(band)) {
    Verdict out = Verdict::equivalent(bounds);
    out.margin = margin;
    return out;
  }
  Verdict out =
      Verdict::inconclusive(samples_to_decide(estimate.ratio, estimate.unit_variance, estimate.unit,
                                              estimate.now, estimate.confidence, margin),
                            bounds);
  out.margin = margin;
  return out;
}

}  // namespace kdrift
