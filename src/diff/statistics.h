#pragma once
// Two-sample statistics for deciding whether a measurement moved between two boots. I/O latencies
// and per-second IOPS are skewed and often multi-modal, so the tests are rank-based and assume no
// distribution, and the size of a change is a bootstrap interval rather than a normal-theory one.
// Only the standard library is used, and the bootstrap draws from its own generator, so a diff
// gives the same numbers on every machine that runs kdrift.
//
// Degenerate input is a value, never an error: an empty sample or a NaN gives the NaN statistic
// and p-value 1 ("no evidence of a change"), as documented per function.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kdrift {

// NaN when values is empty or holds a NaN; the mean of the two middle values for even sizes.
double median(std::vector<double> values);

// Fisher's exact test, two-sided, on a 2x2 table: `with_a` of `hosts_a` against `with_b` of
// `hosts_b` (how many hosts of two groups hold a setting). The p-value sums the hypergeometric
// probabilities of every table with the same margins no more likely than the one observed.
// 1 when either group is empty or a count exceeds its group.
double fisher_exact_two_sided(std::size_t with_a, std::size_t hosts_a, std::size_t with_b,
                              std::size_t hosts_b);

// The q-quantile of ascending values, interpolating linearly between the closest ranks as
// numpy.quantile does by default; q is clamped to [0, 1]. NaN when sorted is empty or q is NaN.
// Between a finite and an infinite neighbour the result is the infinite one, so that a bootstrap
// bound over unbounded ratios is unbounded rather than NaN.
double quantile_sorted(const std::vector<double>& sorted, double q);

struct RankTest {
  double statistic;
  double p_value;
};

// Up to this many values in both samples together, every count of orderings fits in 64 bits
// (C(64, 32) < 2^64) and the exact Mann-Whitney distribution costs under 70 000 additions.
inline constexpr std::size_t kMannWhitneyExactMaxTotal = 64;

// Two-sided Mann-Whitney U test. statistic is U of a: the number of pairs (x from a, y from b)
// with x > y, a tie counting one half. The p-value is exact (counting every ordering of the
// pooled samples) when there are no ties and a.size() + b.size() <= kMannWhitneyExactMaxTotal;
// otherwise it is the normal approximation with tie and continuity correction, as
// scipy.stats.mannwhitneyu(a, b, method='asymptotic', use_continuity=True) gives.
// Either sample empty or holding a NaN: statistic NaN, p_value 1.
RankTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// The smallest p-value the exact two-sided Mann-Whitney test can reach with samples of these
// sizes, 2 / C(n1 + n2, n1), capped at 1. When it is above the significance level, "no
// significant change" only means too few samples were taken.
double smallest_two_sided_p(std::size_t n1, std::size_t n2);

// Up to this many lattice cells (n1 * n2) the exact Kolmogorov-Smirnov p-value is computed; one
// cell costs a few floating-point operations, so the bound keeps a test within a few
// milliseconds.
inline constexpr std::size_t kKolmogorovSmirnovExactMaxCells = 1'000'000;

// Two-sided two-sample Kolmogorov-Smirnov test. statistic is D, the largest distance between the
// two empirical distribution functions. When a.size() * b.size() <= kKolmogorovSmirnovExactMaxCells
// the p-value is exact, P(D >= observed) over all orderings of the pooled samples as if there were
// no ties (scipy.stats.ks_2samp(a, b, method='exact') computes the same; with ties it is
// conservative). Larger samples use the limiting Kolmogorov distribution,
// scipy.stats.kstwobign.sf(sqrt(n1 * n2 / (n1 + n2)) * D); scipy's method='asymp' uses a
// finite-n variant, which differs from it by O(1 / sqrt(n1 * n2 / (n1 + n2))).
// Either sample empty or holding a NaN: statistic NaN, p_value 1.
RankTest kolmogorov_smirnov(const std::vector<double>& a, const std::vector<double>& b);

// Sample standard deviation (n - 1) over the mean: the spread of a run's per-second values
// relative to their level. NaN with fewer than two values, a NaN, or a mean of 0.
double coefficient_of_variation(const std::vector<double>& values);

// The p-quantile of Student's t distribution with df degrees of freedom, found by bisection on
// its distribution function (through the regularized incomplete beta function, evaluated by its
// continued fraction); within 1e-8 of scipy.stats.t.ppf, whose own t.cdf puts these values
// closer to p than its ppf. NaN when df <= 0 or p is outside
// (0, 1).
double student_t_quantile(double p, double df);

// Student's t distribution function with df degrees of freedom. NaN when df <= 0 or t is NaN.
double student_t_cdf(double t, double df);

struct MeanDifference {
  double difference;  // mean(b) - mean(a)
  double low;         // its confidence interval
  double high;
  double p_value;  // two-sided
  double df;
};

// Welch's two-sample t test of mean(b) - mean(a), with the interval at `confidence`. kdrift gives
// it log values, one per boot or host, so the difference is the log of a ratio of geometric
// means. A side with one value borrows the other side's variance (is the one value outside what
// the other side's values predict?) on that side's n - 1 degrees of freedom. No spread at all
// gives p 1 for equal means and 0 otherwise, with the difference as both bounds. Fewer than two
// values on both sides, an empty side or a NaN: difference NaN, p_value 1.
// floor: the least variance of one value on each side, known from elsewhere (a snapshot's own
// run-to-run spread), so that a few values that agree by chance do not claim more precision
// than each of them has.
struct VarianceFloor {
  double a = 0;
  double b = 0;
};
MeanDifference welch_t_test(const std::vector<double>& a, const std::vector<double>& b,
                            double confidence = 0.95, VarianceFloor floor = {});

// The p-quantile of the standard normal distribution, by bisection on std::erfc; within 1e-12 of
// scipy.stats.norm.ppf. NaN when p is outside (0, 1).
double normal_quantile(double p);

struct RatioInterval {
  double estimate;
  double low;
  double high;
};

// "kdrift" in ASCII: any fixed value would do, as long as every build uses the same one.
inline constexpr std::uint64_t kBootstrapSeed = 0x6b6472696674;

// Percentile-bootstrap confidence interval of median(b) / median(a). Each resample draws a.size()
// values from a and b.size() values from b, independently and with replacement, from a
// splitmix64 stream started at seed, so the interval is the same on every platform and standard
// library. The low and high bounds are quantile_sorted of the resampled ratios at
// (1 - confidence) / 2 and 1 - (1 - confidence) / 2.
// A median of 0 in the denominator gives +inf (numerator above 0), -inf (below 0) or 1 (numerator
// also 0: equal medians are no change), both for the estimate and for every resample; those
// resamples are kept, so a bound is infinite when too many of them were unbounded.
// Either sample empty or holding a NaN: all three NaN. resamples < 1 or confidence outside (0, 1):
// the estimate with NaN bounds.
RatioInterval bootstrap_median_ratio(const std::vector<double>& a, const std::vector<double>& b,
                                     int resamples = 2000, double confidence = 0.95,
                                     std::uint64_t seed = kBootstrapSeed);

}  // namespace kdrift
