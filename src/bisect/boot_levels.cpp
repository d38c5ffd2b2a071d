#include "bisect/boot_levels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "diff/statistics.h"

namespace kdrift {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Beyond this many degrees of freedom Student's t is the normal distribution to the precision a
// p-value needs, and its incomplete beta function converges slowly.
constexpr double kNormalDf = 1e4;

// The q-quantile of the chi-square distribution on df degrees of freedom, by Wilson and
// Hilferty's cube-root approximation (within a few percent from 2 degrees of freedom on, which
// is all the drift's bounds for the budget decision need of it).
double chi_square_quantile(double q, double df) {
  const double spread = 2 / (9 * df);
  const double root = 1 - spread + normal_quantile(q) * std::sqrt(spread);
  return df * std::max(root, 0.0) * std::max(root, 0.0) * std::max(root, 0.0);
}

// The mean of the boots' levels, each boot alike: what the analysis of variance centres on.
double mean_level(const BootLevels& boots) {
  double sum = 0;
  for (const BootLevel& boot : boots)
    sum += boot.level;
  return sum / static_cast<double>(boots.size());
}

}  // namespace

BootLevels boot_levels(const std::vector<double>& runs,
                       const std::vector<std::size_t>& boot_sizes) {
  BootLevels boots;
  boots.reserve(boot_sizes.size());
  std::size_t from = 0;
  for (const std::size_t size : boot_sizes) {
    if (size == 0 || from + size > runs.size()) break;
    BootLevel boot;
    boot.runs = static_cast<int>(size);
    for (std::size_t i = from; i < from + size; ++i)
      boot.level += runs[i] > 0 ? std::log(runs[i]) : kNaN;
    boot.level /= static_cast<double>(size);
    for (std::size_t i = from; i < from + size; ++i)
      boot.squares += std::pow(std::log(runs[i]) - boot.level, 2);
    boots.push_back(boot);
    from += size;
  }
  return boots;
}

double DriftEstimate::drift_variance() const {
  if (!(between_df > 0)) return 0;
  return std::max(0.0, between - noise * run_part);
}

double DriftEstimate::drift_upper_variance(double confidence) const {
  if (!(between_df > 0)) return std::numeric_limits<double>::infinity();
  const double bound = between * between_df / chi_square_quantile(1 - confidence, between_df);
  return std::max(0.0, bound - noise * run_part);
}

double DriftEstimate::drift_lower_variance(double confidence) const {
  if (!(between_df > 0)) return 0;
  const double bound = between * between_df / chi_square_quantile(confidence, between_df);
  return std::max(0.0, bound - noise * run_part);
}

DriftEstimate DriftEstimate::with_drift(double drift_variance) const {
  DriftEstimate out = *this;
  out.between = drift_variance + noise * run_part;
  return out;
}

DriftEstimate estimate_drift(const std::vector<BootLevels>& candidates) {
  DriftEstimate out;
  double within = 0;
  double between = 0;
  double run_part = 0;
  for (const BootLevels& boots : candidates) {
    const bool usable = std::all_of(boots.begin(), boots.end(), [](const BootLevel& boot) {
      return std::isfinite(boot.level);
    });
    if (boots.empty() || !usable) continue;
    for (const BootLevel& boot : boots) {
      within += boot.squares;
      out.noise_df += boot.runs - 1;
    }
    if (boots.size() < 2) continue;
    // E[sum of squares around the candidate's mean] = (1 - 1/k) * sum of the boots' variances.
    const double level = mean_level(boots);
    const auto k = static_cast<double>(boots.size());
    for (const BootLevel& boot : boots) {
      between += std::pow(boot.level - level, 2);
      run_part += (1 - 1 / k) / boot.runs;
    }
    out.between_df += k - 1;
  }
  if (out.noise_df > 0) out.noise = within / out.noise_df;
  if (out.between_df > 0) {
    out.between = between / out.between_df;
    out.run_part = run_part / out.between_df;
  }
  return out;
}

double LevelEstimate::variance(const DriftEstimate& drift) const {
  return drift_part * drift.drift_variance() + noise_part * drift.noise;
}

LevelEstimate estimate_level(const BootLevels& boots, const DriftEstimate& drift) {
  LevelEstimate out;
  const double drift_variance = drift.drift_variance();
  double weights = 0;
  for (const BootLevel& boot : boots) {
    // 1 / (drift² + noise / runs), written so that boots without noise or drift weigh by runs.
    const double denominator = drift.noise + drift_variance * boot.runs;
    const double weight = denominator > 0 ? boot.runs / denominator : boot.runs;
    weights += weight;
    out.level += weight * boot.level;
    out.drift_part += weight * weight;
    out.noise_part += weight * weight / boot.runs;
  }
  if (!(weights > 0)) return {kNaN, 0, 0};
  out.level /= weights;
  out.drift_part /= weights * weights;
  out.noise_part /= weights * weights;
  return out;
}

LevelSpread level_spread(double drift_part, double noise_part, const DriftEstimate& drift) {
  LevelSpread out;
  const double variance = drift_part * drift.drift_variance() + noise_part * drift.noise;
  out.se = std::sqrt(variance);
  // Satterthwaite: the drift's part is as uncertain as the mean square it comes from, even when
  // that mean square showed no drift at all (an estimate of 0 from a few boots is no proof of 0).
  double spread = 0;
  if (drift.between_df > 0) spread += std::pow(drift_part * drift.between, 2) / drift.between_df;
  if (drift.noise_df > 0) spread += std::pow(noise_part * drift.noise, 2) / drift.noise_df;
  out.df =
      spread > 0 && variance > 0 ? std::min(kNormalDf, variance * variance / spread) : kNormalDf;
  return out;
}

double LevelSpread::p(double difference) const {
  if (std::isnan(difference)) return 1;
  if (!(se > 0)) return difference == 0 ? 1 : 0;
  const double t = std::fabs(difference) / se;
  const double two_sided =
      df >= kNormalDf ? std::erfc(t / std::numbers::sqrt2) : 2 * (1 - student_t_cdf(t, df));
  return std::clamp(two_sided, 0.0, 1.0);
}

LevelDifference compare_levels(const BootLevels& a, const BootLevels& b,
                               const DriftEstimate& drift) {
  LevelDifference out;
  if (a.empty() || b.empty()) {
    out.difference = kNaN;
    return out;
  }
  const LevelEstimate one = estimate_level(a, drift);
  const LevelEstimate two = estimate_level(b, drift);
  out.difference = two.level - one.level;
  const LevelSpread spread =
      level_spread(one.drift_part + two.drift_part, one.noise_part + two.noise_part, drift);
  out.se = spread.se;
  out.df = spread.df;
  out.p = spread.p(out.difference);
  return out;
}

}  // namespace kdrift
