#pragma once
// Whether a candidate kernel is good or bad on a performance metric, from samples: one value per
// probe run (a job's median per-second IOPS, or a latency percentile). Runs, not per-second
// values, are the unit: in kdrift's QEMU lab the spread between runs (13-15 % of the median) was
// what each run's per-second spread suggested, and consecutive runs inside one boot varied as
// much as separate boots, so a handful of short runs per boot sample the noise a bisect meets.
//
// A candidate is compared with the good endpoint's samples and with the bad endpoint's, each
// time by p = min(Mann-Whitney U, Kolmogorov-Smirnov): the first catches a shifted level, the
// second a changed shape (a bimodal kernel). It is bad when it differs from the good reference
// at alpha and its median lies on the bad side of the midpoint between the references; good in
// the mirror case; unknown otherwise, and the caller takes more samples.

#include <string>
#include <vector>

namespace kdrift {

enum class Verdict { kGood, kBad, kUnknown };

const char* verdict_name(Verdict verdict);

struct Judgement {
  Verdict verdict = Verdict::kUnknown;
  double p_vs_good = 1;  // min(MWU, KS) of the samples against the good reference
  double p_vs_bad = 1;
  double median = 0;
  std::string reason;  // why, with the numbers
};

// The direction (higher or lower is better) needs no flag: the references define it.
Judgement judge(const std::vector<double>& samples, const std::vector<double>& good,
                const std::vector<double>& bad, double alpha);

struct Calibration {
  bool resolvable = false;
  double cv_good = 0;  // each endpoint's spread, sample SD over mean
  double cv_bad = 0;
  double effect = 0;       // |ln(median bad / median good)|
  double p_endpoints = 1;  // min(MWU, KS) of good against bad
  // The smallest |ln ratio| that max_samples per candidate can tell apart from the references
  // at alpha with 90 % power, by the normal approximation of the rank test.
  double resolvable_effect = 0;
  // With references on several boots: the SD of a boot's log median around its endpoint's
  // level (pooled). Noise a candidate's own boot carries too, which no number of samples inside
  // one boot averages out.
  double boot_drift = 0;
  std::string reason;  // the numbers, for the refusal or the start message
};

// Each endpoint's reference samples cut into the boots that took them, oldest first; empty (or
// one boot a side) when the references came from one boot each.
struct ReferenceBoots {
  std::vector<std::vector<double>> good;
  std::vector<std::vector<double>> bad;
};

// The pooled SD of log boot medians around each endpoint's mean; 0 without two boots on either
// side. From a few boots it is a rough estimate: scripts/bench/bisect-sim measures what it buys.
double boot_drift(const ReferenceBoots& boots);

// The most boots a candidate gets when each boot takes first_samples runs.
int max_boots(int max_samples, int first_samples);

// Boots as the unit, when the references show boot drift: the candidate's boots (their mean log
// median) bad when past the midpoint and z(alpha) standard errors of drift away from good, good
// likewise from bad, else unknown.
Judgement place_boots(const std::vector<std::vector<double>>& candidate,
                      const ReferenceBoots& references, double drift, double alpha);

// Before bisecting: the endpoints must differ at alpha (good is good, bad is bad), and by more
// than the noise lets max_samples per candidate resolve; with references from several boots, by
// more than boot drift lets max_boots boots of a candidate resolve.
Calibration calibrate(const std::vector<double>& good, const std::vector<double>& bad, double alpha,
                      int max_samples, int first_samples = 5, const ReferenceBoots& boots = {});

}  // namespace kdrift
