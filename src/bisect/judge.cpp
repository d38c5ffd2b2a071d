#include "bisect/judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "diff/statistics.h"

namespace kdrift {
namespace {

// Power the calibration asks of a candidate at max_samples: a step it cannot see 9 times in 10
// even there is refused. Most candidates are decided well before max_samples.
constexpr double kPower = 0.90;
// Asymptotic efficiency of the Mann-Whitney test against the t test under normal noise (3/pi):
// the rank test needs 1/0.955 times the samples.
constexpr double kRankEfficiency = 3 / std::numbers::pi;

double rank_p(const std::vector<double>& a, const std::vector<double>& b) {
  return std::min(mann_whitney_u(a, b).p_value, kolmogorov_smirnov(a, b).p_value);
}

template <class... Numbers>
std::string format(const char* pattern, Numbers... numbers) {
  char text[256];
  (void)std::snprintf(text, sizeof text, pattern, numbers...);
  return text;
}

// A candidate's boot is placed by which side of the endpoints' midpoint it lands on: its own
// boot's offset must stay under half the change.
constexpr double kBootDriftMargin = 2;

double boot_drift(const std::vector<std::vector<double>>& boots) {
  double drift = 0;
  for (std::size_t i = 0; i < boots.size(); ++i) {
    for (std::size_t j = i + 1; j < boots.size(); ++j) {
      const double a = median(boots[i]);
      const double b = median(boots[j]);
      if (a > 0 && b > 0) drift = std::max(drift, std::fabs(std::log(a / b)));
    }
  }
  return drift;
}

std::string boot_medians_text(const std::vector<std::vector<double>>& boots) {
  std::string text;
  for (const std::vector<double>& boot : boots)
    text += (text.empty() ? "" : " / ") + format("%.6g", median(boot));
  return text;
}

}  // namespace

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kGood:
      return "good";
    case Verdict::kBad:
      return "bad";
    case Verdict::kUnknown:
      break;
  }
  return "unknown";
}

Judgement judge(const std::vector<double>& samples, const std::vector<double>& good,
                const std::vector<double>& bad, double alpha) {
  Judgement out;
  out.median = median(samples);
  if (samples.empty() || good.empty() || bad.empty()) {
    out.reason = "no samples to compare";
    return out;
  }
  out.p_vs_good = rank_p(samples, good);
  out.p_vs_bad = rank_p(samples, bad);
  const double good_median = median(good);
  const double bad_median = median(bad);
  const double midpoint = (good_median + bad_median) / 2;
  const bool bad_side = (out.median - midpoint) * (bad_median - midpoint) > 0;
  const std::string numbers =
      format("median %.6g (good %.6g, bad %.6g); p against good %.3g, against bad %.3g; n = %zu",
             out.median, good_median, bad_median, out.p_vs_good, out.p_vs_bad, samples.size());
  if (bad_side && out.p_vs_good < alpha) {
    out.verdict = Verdict::kBad;
    out.reason = "differs from good, on the bad side: " + numbers;
  } else if (!bad_side && out.p_vs_bad < alpha) {
    out.verdict = Verdict::kGood;
    out.reason = "differs from bad, on the good side: " + numbers;
  } else {
    out.reason = "not yet told apart: " + numbers;
  }
  return out;
}

Calibration calibrate(const std::vector<double>& good, const std::vector<double>& bad, double alpha,
                      int max_samples, const ReferenceBoots& boots) {
  Calibration out;
  out.cv_good = coefficient_of_variation(good);
  out.cv_bad = coefficient_of_variation(bad);
  const double good_median = median(good);
  const double bad_median = median(bad);
  if (good.size() < 2 || bad.size() < 2 || !(good_median > 0) || !(bad_median > 0)) {
    out.reason = "the endpoints need at least two positive samples each";
    return out;
  }
  out.effect = std::fabs(std::log(bad_median / good_median));
  out.p_endpoints = rank_p(good, bad);
  const double spread = std::sqrt((out.cv_good * out.cv_good + out.cv_bad * out.cv_bad) / 2);
  const double z = normal_quantile(1 - alpha / 2) + normal_quantile(kPower);
  const double per_side = 1.0 / max_samples + 1.0 / static_cast<double>(good.size());
  out.resolvable_effect = z * spread * std::sqrt(per_side / kRankEfficiency);
  const std::string numbers = format(
      "good median %.6g, bad median %.6g: effect %.1f %%; noise (CV) %.1f %%; resolvable with %d "
      "samples a candidate: %.1f %%; endpoints p = %.3g against %.3g a judgement",
      good_median, bad_median, 100 * out.effect, 100 * spread, max_samples,
      100 * out.resolvable_effect, out.p_endpoints, alpha);
  out.boot_drift = std::max(boot_drift(boots.good), boot_drift(boots.bad));
  const std::string boot_numbers =
      boots.good.size() > 1 || boots.bad.size() > 1
          ? format("; boot-to-boot drift %.1f %%", 100 * out.boot_drift) + " (good boots " +
                boot_medians_text(boots.good) + ", bad boots " + boot_medians_text(boots.bad) + ")"
          : std::string();
  if (out.p_endpoints >= alpha) {
    out.reason = "good and bad do not differ at alpha: " + numbers + boot_numbers;
  } else if (out.effect < out.resolvable_effect) {
    out.reason = "the change is smaller than the noise lets a bisect resolve: " + numbers;
  } else if (out.effect < kBootDriftMargin * out.boot_drift) {
    out.reason =
        "one endpoint's boots differ by more than half the change, so a candidate's boot could "
        "land on the wrong side: " +
        numbers + boot_numbers;
  } else {
    out.resolvable = true;
    out.reason = numbers + boot_numbers;
  }
  return out;
}

}  // namespace kdrift
