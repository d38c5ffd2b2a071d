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
  // The largest |ln ratio| between the medians of two reference boots of one endpoint: noise a
  // candidate's own boot carries too, which no number of samples inside one boot averages out.
  double boot_drift = 0;
  std::string reason;  // the numbers, for the refusal or the start message
};

// Each endpoint's reference samples cut into the boots that took them, oldest first; empty (or
// one boot a side) when the references came from one boot each.
struct ReferenceBoots {
  std::vector<std::vector<double>> good;
  std::vector<std::vector<double>> bad;
};

// Before bisecting: the endpoints must differ at alpha (good is good, bad is bad), and by more
// than the noise lets max_samples per candidate resolve; with references from several boots,
// by at least twice the drift between one endpoint's boots, so that a candidate's boot lands on
// its own side of the midpoint.
Calibration calibrate(const std::vector<double>& good, const std::vector<double>& bad, double alpha,
                      int max_samples, const ReferenceBoots& boots = {});

}  // namespace kdrift
