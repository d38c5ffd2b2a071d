#include "bisect/judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "diff/statistics.h"

namespace kdrift {
namespace {

// Power the calibration plans each verdict for. Sequential looks decide most candidates before
// the boots planned for 3 times in 4, and the verdicts that only steer need less: planned this
// way, bisect-sim's plans came out at the boots its bisects took (14, 23, 32 at 0, 2, 3 % drift).
constexpr double kPower = 0.75;
// The drift's bounds the budget decision waits for.
constexpr double kDriftConfidence = 0.90;
// Plans are sought up to this many times the budget, so that a refusal can say how far off it is.
constexpr int kPlanBeyondBudget = 10;
// Boots per candidate tried one by one; beyond, in steps of 1/kCoarseSteps of k, so that a
// budget of 100,000 boots costs a few hundred tries, not a million.
constexpr int kExactBootsPerCandidate = 32;
constexpr int kCoarseSteps = 16;

template <class... Numbers>
std::string format(const char* pattern, Numbers... numbers) {
  char text[320];
  (void)std::snprintf(text, sizeof text, pattern, numbers...);
  return text;
}

// Whether k boots of each visited candidate and `side` boots of each endpoint make every
// verdict at kPower, the drift's degrees of freedom growing with those boots.
bool powered(double effect, int k, int side, std::size_t good_boots, std::size_t bad_boots,
             const DriftEstimate& drift, const SearchShape& shape) {
  DriftEstimate planned = drift;
  planned.between_df += 2 * side - static_cast<double>(good_boots + bad_boots) + (k - 1);
  const double z_power = normal_quantile(kPower);
  const auto sure = [&](const LevelSpread& spread, int look) {
    const double margin = effect - z_power * spread.se;
    return margin > 0 && spread.p(margin) <= look_alpha(shape.alpha, shape.visits, look);
  };
  const double r = side;
  const LevelSpread candidate =
      level_spread(1.0 / k + 1.0 / r,
                   1.0 / (k * shape.first_samples) + 1.0 / (r * shape.reference_runs), planned);
  const LevelSpread endpoints = level_spread(2.0 / r, 2.0 / (r * shape.reference_runs), planned);
  return sure(candidate, k) && sure(endpoints, 1);
}

// The fewest boots a bisect needs at this effect, or 0 when no plan within kPlanBeyondBudget
// times the budget has: k boots for each candidate it visits, each endpoint brought to the
// fewest boots that then make every verdict at the answer's level (an upper estimate: the
// verdicts that only steer need less), a retest. Past kExactBootsPerCandidate the plan may
// overshoot the fewest by up to 1/kCoarseSteps.
int plan_boots(double effect, std::size_t good_boots, std::size_t bad_boots,
               const DriftEstimate& drift, const SearchShape& shape, int& weighed) {
  const int limit = kPlanBeyondBudget * std::max(shape.max_boots, 1);
  const auto taken = static_cast<int>(good_boots + bad_boots);
  const int now = static_cast<int>(std::max(good_boots, bad_boots));
  const auto total = [&](int k, int side) {
    return shape.boots_used - taken + 2 * side + shape.visits * k + 1;
  };
  const auto enough = [&](int k, int side) {
    ++weighed;
    return powered(effect, k, side, good_boots, bad_boots, drift, shape);
  };
  int best = 0;
  const auto next = [](int k) {
    return k < kExactBootsPerCandidate ? k + 1 : k + k / kCoarseSteps;
  };
  for (int k = 1; total(k, now) <= (best > 0 ? best : limit); k = next(k)) {
    // The endpoints' boots that suffice, found by doubling, then halving (more never hurt).
    int high = now;
    while (!enough(k, high) && total(k, high) <= limit)
      high = 2 * high;
    if (!enough(k, high)) continue;
    int low = now;
    while (low < high) {
      const int middle = (low + high) / 2;
      if (enough(k, middle)) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    if (best == 0 || total(k, high) < best) best = total(k, high);
  }
  return best;
}

std::string boots_text(int needed, int max_boots) {
  return needed > 0 ? std::to_string(needed)
                    : "over " + std::to_string(kPlanBeyondBudget * max_boots);
}

std::string calibration_reason(const Calibration& out, std::size_t good_boots,
                               std::size_t bad_boots, double good_level, double bad_level,
                               bool apart) {
  const std::string numbers = format(
      "good %.6g, bad %.6g over %zu and %zu boots: effect %.1f %%, endpoints p = %.3g; runs' "
      "noise (CV) %.1f %%, boot-to-boot drift %.1f %% (90 %% bounds %.1f-%.1f %%)",
      std::exp(good_level), std::exp(bad_level), good_boots, bad_boots, 100 * out.effect,
      out.p_endpoints, 100 * out.noise, 100 * out.drift, 100 * out.drift_low, 100 * out.drift_high);
  const std::string needed =
      "; boots the whole bisect needs: " + boots_text(out.boots_needed, out.max_boots) + " (" +
      boots_text(out.boots_needed_low, out.max_boots) + " to " +
      boots_text(out.boots_needed_high, out.max_boots) +
      " within the drift's bounds), --max-boots " + std::to_string(out.max_boots);
  switch (out.decision) {
    case Calibration::Decision::kSearch:
      return numbers + needed;
    case Calibration::Decision::kMoreReferences:
      return "not yet decided: " + numbers + needed;
    case Calibration::Decision::kRefuse:
      break;
  }
  if (out.boots_needed == 0 && !apart) return "good and bad do not differ: " + numbers + needed;
  return "the budget cannot resolve the change under this noise and drift: " + numbers + needed;
}

}  // namespace

const char* verdict_name(CandidateVerdict verdict) {
  switch (verdict) {
    case CandidateVerdict::kGood:
      return "good";
    case CandidateVerdict::kBad:
      return "bad";
    case CandidateVerdict::kInconclusive:
      break;
  }
  return "inconclusive";
}

Judgement judge(const BootLevels& candidate, const BootLevels& good, const BootLevels& bad,
                const DriftEstimate& drift, double alpha) {
  Judgement out;
  if (candidate.empty() || good.empty() || bad.empty()) {
    out.reason = "no boots to compare";
    return out;
  }
  const double level = estimate_level(candidate, drift).level;
  const double good_level = estimate_level(good, drift).level;
  const double bad_level = estimate_level(bad, drift).level;
  out.level = std::exp(level);
  const LevelDifference vs_good = compare_levels(good, candidate, drift);
  const LevelDifference vs_bad = compare_levels(bad, candidate, drift);
  out.p_vs_good = vs_good.p;
  out.p_vs_bad = vs_bad.p;
  const double midpoint = (good_level + bad_level) / 2;
  const bool bad_side = (level - midpoint) * (bad_level - midpoint) > 0;
  const std::string numbers = format(
      "%zu boot(s) at %.6g (good %.6g, bad %.6g); p against good %.3g, against bad %.3g (%.0f "
      "and %.0f degrees of freedom) at %.3g",
      candidate.size(), out.level, std::exp(good_level), std::exp(bad_level), out.p_vs_good,
      out.p_vs_bad, vs_good.df, vs_bad.df, alpha);
  if (bad_side && out.p_vs_good < alpha) {
    out.verdict = CandidateVerdict::kBad;
    out.reason = "differs from good, on the bad side: " + numbers;
  } else if (!bad_side && out.p_vs_bad < alpha) {
    out.verdict = CandidateVerdict::kGood;
    out.reason = "differs from bad, on the good side: " + numbers;
  } else {
    out.reason = "not yet told apart: " + numbers;
  }
  return out;
}

double look_alpha(double alpha, int share, int look) {
  const double weight = 1.0 / (static_cast<double>(look) * (look + 1));
  return alpha * weight / std::max(share, 1);
}

Calibration calibrate(const BootLevels& good, const BootLevels& bad, const DriftEstimate& drift,
                      const SearchShape& shape, bool final_call) {
  Calibration out;
  out.max_boots = shape.max_boots;
  const double good_level = estimate_level(good, drift).level;
  const double bad_level = estimate_level(bad, drift).level;
  out.effect = std::fabs(bad_level - good_level);
  out.noise = std::sqrt(drift.noise);
  const double low = drift.drift_lower_variance(kDriftConfidence);
  const double high = drift.drift_upper_variance(kDriftConfidence);
  out.drift = std::sqrt(drift.drift_variance());
  out.drift_low = std::sqrt(low);
  out.drift_high = std::sqrt(high);
  if (!std::isfinite(out.effect)) {
    out.decision = Calibration::Decision::kRefuse;
    out.reason = "the endpoints need positive samples";
    return out;
  }
  const auto plan = [&](double effect, const DriftEstimate& at) {
    return plan_boots(effect, good.size(), bad.size(), at, shape, out.plans_weighed);
  };
  // The change itself is known only as well as the endpoints' boots tell it: the optimistic
  // plan takes it at its upper bound too (a step that looks small on two boots a side may not be).
  const LevelDifference endpoints = compare_levels(good, bad, drift);
  const double effect_high = out.effect + normal_quantile(kDriftConfidence) * endpoints.se;
  out.boots_needed = plan(out.effect, drift);
  out.boots_needed_low = plan(effect_high, drift.with_drift(low));
  out.boots_needed_high = std::isfinite(high) ? plan(out.effect, drift.with_drift(high)) : 0;
  const auto fits = [&](int needed) { return needed > 0 && needed <= shape.max_boots; };
  out.p_endpoints = endpoints.p;
  const bool apart = out.p_endpoints < look_alpha(shape.alpha, shape.visits, 1);
  if (fits(out.boots_needed_high)) {
    out.decision = Calibration::Decision::kSearch;
  } else if (!fits(out.boots_needed_low) || (final_call && !fits(out.boots_needed))) {
    out.decision = Calibration::Decision::kRefuse;
  } else if (final_call) {
    out.decision = Calibration::Decision::kSearch;
  }
  out.reason = calibration_reason(out, good.size(), bad.size(), good_level, bad_level, apart);
  return out;
}

}  // namespace kdrift
