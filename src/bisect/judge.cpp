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

double log_median(const std::vector<double>& boot) {
  const double value = median(boot);
  return value > 0 ? std::log(value) : std::nan("");
}

double mean_log_median(const std::vector<std::vector<double>>& boots) {
  double sum = 0;
  for (const std::vector<double>& boot : boots)
    sum += log_median(boot);
  return sum / static_cast<double>(boots.size());
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

double boot_drift(const ReferenceBoots& boots) {
  double squares = 0;
  int degrees = 0;
  for (const auto* side : {&boots.good, &boots.bad}) {
    if (side->size() < 2) continue;
    const double mean = mean_log_median(*side);
    for (const std::vector<double>& boot : *side)
      squares += std::pow(log_median(boot) - mean, 2);
    degrees += static_cast<int>(side->size()) - 1;
  }
  return degrees > 0 && std::isfinite(squares) ? std::sqrt(squares / degrees) : 0;
}

int max_boots(int max_samples, int first_samples) {
  return std::max(1, max_samples / std::max(1, first_samples));
}

Judgement place_boots(const std::vector<std::vector<double>>& candidate,
                      const ReferenceBoots& references, double drift, double alpha) {
  Judgement out;
  if (candidate.empty() || references.good.empty() || references.bad.empty() || !(drift > 0)) {
    out.reason = "no boots to place";
    return out;
  }
  const double good = mean_log_median(references.good);
  const double bad = mean_log_median(references.bad);
  const double level = mean_log_median(candidate);
  out.median = std::exp(level);
  const auto boots = static_cast<double>(candidate.size());
  const double z = normal_quantile(1 - alpha / 2);
  // One-sided distances in standard errors of boot drift: a verdict needs the far endpoint
  // excluded, as the in-boot rank test does with samples.
  const double se_good =
      drift * std::sqrt(1 / boots + 1 / static_cast<double>(references.good.size()));
  const double se_bad =
      drift * std::sqrt(1 / boots + 1 / static_cast<double>(references.bad.size()));
  const bool bad_side = (level - (good + bad) / 2) * (bad - good) > 0;
  const std::string numbers = format(
      "%zu boot(s) at %.6g (good %.6g, bad %.6g), %.1f and %.1f boot-drift SEs from good "
      "and bad, %.2f needed",
      candidate.size(), out.median, std::exp(good), std::exp(bad),
      std::fabs(level - good) / se_good, std::fabs(level - bad) / se_bad, z);
  if (bad_side && std::fabs(level - good) / se_good >= z) {
    out.verdict = Verdict::kBad;
  } else if (!bad_side && std::fabs(level - bad) / se_bad >= z) {
    out.verdict = Verdict::kGood;
  }
  out.reason = numbers;
  return out;
}

Calibration calibrate(const std::vector<double>& good, const std::vector<double>& bad, double alpha,
                      int max_samples, int first_samples, const ReferenceBoots& boots) {
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
  out.boot_drift = boot_drift(boots);
  std::string boot_numbers;
  if (out.boot_drift > 0) {
    // A bad candidate must stand z standard errors of boot drift from good with max_boots boots.
    const double boot_se = out.boot_drift * std::sqrt(1.0 / max_boots(max_samples, first_samples) +
                                                      1.0 / static_cast<double>(boots.good.size()));
    out.resolvable_effect = std::max(out.resolvable_effect, z * boot_se);
    boot_numbers =
        format(
            "; boot-to-boot drift (SD of a boot's median) %.1f %%, resolvable with "
            "%d boots a candidate: %.1f %%",
            100 * out.boot_drift, max_boots(max_samples, first_samples), 100 * z * boot_se) +
        " (good boots " + boot_medians_text(boots.good) + ", bad boots " +
        boot_medians_text(boots.bad) + ")";
  }
  if (out.p_endpoints >= alpha) {
    out.reason = "good and bad do not differ at alpha: " + numbers + boot_numbers;
  } else if (out.effect < out.resolvable_effect) {
    out.reason =
        "the change is smaller than the noise lets a bisect resolve: " + numbers + boot_numbers;
  } else {
    out.resolvable = true;
    out.reason = numbers + boot_numbers;
  }
  return out;
}

}  // namespace kdrift
