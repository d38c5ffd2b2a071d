#include "diff/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <utility>

namespace kdrift {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr RankTest kNoTest = {kNaN, 1.0};

bool has_nan(const std::vector<double>& values) {
  return std::any_of(values.begin(), values.end(), [](double value) { return std::isnan(value); });
}

bool unusable(const std::vector<double>& a, const std::vector<double>& b) {
  return a.empty() || b.empty() || has_nan(a) || has_nan(b);
}

// Reorders values instead of copying them: the bootstrap takes thousands of medians of buffers
// it refills anyway. values must be non-empty and free of NaN.
double median_in_place(std::vector<double>& values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double below = *std::max_element(values.begin(), middle);
  return (below + *middle) / 2;
}

// numpy's form of linear interpolation: exact at both ends and monotone in fraction.
double interpolate(double low, double high, double fraction) {
  if (fraction == 0 || low == high) return low;
  // Any weight on an infinite end makes the result infinite; the formula below would give
  // inf - inf = NaN.
  if (std::isinf(low)) return low;
  if (std::isinf(high)) return high;
  const double span = high - low;
  return fraction < 0.5 ? low + span * fraction : high - span * (1 - fraction);
}

struct PooledRanks {
  double rank_sum_a;  // 1-based ranks in a ∪ b, tied values sharing their average rank
  double tie_term;    // Σ (t³ − t) over groups of t equal values
};

PooledRanks rank_pooled(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> pooled;  // value, whether it came from a
  pooled.reserve(a.size() + b.size());
  for (const double value : a)
    pooled.emplace_back(value, true);
  for (const double value : b)
    pooled.emplace_back(value, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& left, const auto& right) { return left.first < right.first; });
  PooledRanks ranks = {0, 0};
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start;
    std::size_t from_a = 0;
    for (; end < pooled.size() && pooled[end].first == pooled[start].first; ++end) {
      if (pooled[end].second) ++from_a;
    }
    const double shared_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2;
    ranks.rank_sum_a += static_cast<double>(from_a) * shared_rank;
    const auto group = static_cast<double>(end - start);
    ranks.tie_term += group * group * group - group;
    start = end;
  }
  return ranks;
}

// counts[u] is how many of the C(n1 + n2, n1) orderings of the pooled samples give U = u: the
// coefficients of the Gaussian binomial [n1 + n2 choose n1]_q, the product over i = 1..n1 of
// (1 - q^(n2 + i)) / (1 - q^i). Intermediate coefficients may wrap around, but unsigned arithmetic
// is exact modulo 2^64 and the final ones fit (kMannWhitneyExactMaxTotal), so they come out exact.
// The distribution is the same with n1 and n2 swapped; passing the smaller as n1 is cheaper.
std::vector<std::uint64_t> mann_whitney_null_counts(std::size_t n1, std::size_t n2) {
  const std::size_t largest_u = n1 * n2;
  std::vector<std::uint64_t> counts(largest_u + 1, 0);
  counts[0] = 1;
  for (std::size_t i = 1; i <= n1; ++i) {
    const std::size_t factor_degree = n2 + i;
    for (std::size_t u = largest_u + 1; u-- > factor_degree;)
      counts[u] -= counts[u - factor_degree];
    for (std::size_t u = i; u <= largest_u; ++u)
      counts[u] += counts[u - i];
  }
  return counts;
}

double mann_whitney_exact_p(std::size_t n1, std::size_t n2, double u_a) {
  const std::vector<std::uint64_t> counts =
      mann_whitney_null_counts(std::min(n1, n2), std::max(n1, n2));
  const auto u_far = static_cast<std::size_t>(std::max(u_a, static_cast<double>(n1 * n2) - u_a));
  std::uint64_t orderings = 0;
  std::uint64_t as_far_or_further = 0;
  for (std::size_t u = 0; u < counts.size(); ++u) {
    orderings += counts[u];
    if (u >= u_far) as_far_or_further += counts[u];
  }
  // The null distribution is symmetric, so the other tail is as heavy.
  const double p = 2 * static_cast<double>(as_far_or_further) / static_cast<double>(orderings);
  return std::min(p, 1.0);
}

double mann_whitney_normal_p(std::size_t n1, std::size_t n2, double u_a, double tie_term) {
  const double pairs = static_cast<double>(n1) * static_cast<double>(n2);
  const double total = static_cast<double>(n1 + n2);
  const double variance = pairs / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) return 1.0;  // every value equal: nothing to tell the samples apart
  const double u_far = std::max(u_a, pairs - u_a);
  const double z = (u_far - pairs / 2 - 0.5) / std::sqrt(variance);
  return std::min(std::erfc(z / std::numbers::sqrt2), 1.0);
}

std::uint64_t lattice_gap(std::size_t i, std::size_t j, std::size_t n1, std::size_t n2) {
  const std::uint64_t left = std::uint64_t{i} * n2;
  const std::uint64_t right = std::uint64_t{j} * n1;
  return left > right ? left - right : right - left;
}

// Under the null every ordering of the pooled values is equally likely: a uniformly random
// monotone lattice path from (0, 0) to (n1, n2), where (i, j) means i values of a and j of b so
// far. The p-value is the chance that the path reaches a cell with lattice_gap >= widest_gap.
// Propagating probabilities rather than counts cannot overflow, and adding up the mass that
// leaves the band, rather than subtracting what stays from 1, keeps small p-values accurate.
double kolmogorov_smirnov_exact_p(std::size_t n1, std::size_t n2, std::uint64_t widest_gap) {
  auto inside = [&](std::size_t i, std::size_t j) {
    return lattice_gap(i, j, n1, n2) < widest_gap;
  };
  // reach[j], while row i is visited, is the chance of being at (i, j) without having left.
  std::vector<double> reach(n2 + 1, 0.0);
  reach[0] = 1.0;
  double left_band = 0;
  for (std::size_t i = 0; i <= n1; ++i) {
    for (std::size_t j = 0; j <= n2; ++j) {
      const double here = reach[j];
      reach[j] = 0;
      const std::size_t remaining = (n1 - i) + (n2 - j);
      if (here == 0 || remaining == 0) continue;
      const double toward_a = here * static_cast<double>(n1 - i) / static_cast<double>(remaining);
      const double toward_b = here - toward_a;
      if (i < n1) (inside(i + 1, j) ? reach[j] : left_band) += toward_a;
      if (j < n2) (inside(i, j + 1) ? reach[j + 1] : left_band) += toward_b;
    }
  }
  return std::min(left_band, 1.0);
}

// Survival function of the Kolmogorov distribution, the limit of sqrt(n) * D, from whichever of
// its two series converges within a few terms at x.
double kolmogorov_survival(double x) {
  constexpr int kMaxTerms = 100;
  constexpr double kPi = std::numbers::pi;
  if (x <= 0) return 1.0;
  if (x < 1.18) {
    double sum = 0;
    for (int k = 1; k <= kMaxTerms; ++k) {
      const double odd = 2.0 * k - 1;
      const double term = std::exp(-odd * odd * kPi * kPi / (8 * x * x));
      sum += term;
      if (term <= sum * std::numeric_limits<double>::epsilon()) break;
    }
    return 1 - std::sqrt(2 * kPi) / x * sum;
  }
  double sum = 0;
  double sign = 1;
  for (int k = 1; k <= kMaxTerms; ++k) {
    const double term = std::exp(-2.0 * k * k * x * x);
    sum += sign * term;
    sign = -sign;
    if (term <= sum * std::numeric_limits<double>::epsilon()) break;
  }
  return std::min(2 * sum, 1.0);
}

// The regularized incomplete beta function I_x(a, b) from its continued fraction, evaluated with
// the modified Lentz method; the fraction converges fast for x < (a + 1) / (a + b + 2), and the
// symmetry I_x(a, b) = 1 - I_(1-x)(b, a) covers the rest.
double incomplete_beta_fraction(double x, double a, double b) {
  constexpr int kMaxTerms = 300;
  constexpr double kTiny = 1e-300;
  constexpr double kTolerance = 1e-15;
  auto guard = [](double value) { return std::fabs(value) < kTiny ? kTiny : value; };
  double c = 1;
  double d = 1 / guard(1 - (a + b) * x / (a + 1));
  double fraction = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    const double even = m * (b - m) * x / ((a + 2.0 * m - 1) * (a + 2.0 * m));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    fraction *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    const double step = d * c;
    fraction *= step;
    if (std::fabs(step - 1) < kTolerance) break;
  }
  return fraction;
}

double regularized_incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * incomplete_beta_fraction(x, a, b) / a;
  return 1 - front * incomplete_beta_fraction(1 - x, b, a) / b;
}

double t_cdf(double t, double df) {
  const double tail = 0.5 * regularized_incomplete_beta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

struct Moments {
  double n;
  double mean;
  double variance;  // sample (n - 1); 0 for one value
};

Moments moments_of(const std::vector<double>& values) {
  Moments out{static_cast<double>(values.size()), 0, 0};
  for (const double value : values)
    out.mean += value;
  out.mean /= out.n;
  for (const double value : values)
    out.variance += (value - out.mean) * (value - out.mean);
  out.variance = values.size() > 1 ? out.variance / (out.n - 1) : 0;
  return out;
}

// splitmix64: 64 bits of state, passes BigCrush, and is specified down to the bit, which is what
// makes the bootstrap reproducible everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15;
    std::uint64_t mixed = state_;
    mixed = (mixed ^ (mixed >> 30)) * 0xbf58476d1ce4e5b9;
    mixed = (mixed ^ (mixed >> 27)) * 0x94d049bb133111eb;
    return mixed ^ (mixed >> 31);
  }

  // Uniform in [0, bound). Draws below 2^64 mod bound are rejected so that every remainder is
  // equally likely; std::uniform_int_distribution would do the same, but its output differs
  // between standard libraries.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t rejected = (0 - bound) % bound;
    std::uint64_t draw = next();
    while (draw < rejected)
      draw = next();
    return draw % bound;
  }

 private:
  std::uint64_t state_;
};

void resample(const std::vector<double>& sample, SplitMix64& random, std::vector<double>& into) {
  for (double& value : into)
    value = sample[random.below(sample.size())];
}

double median_ratio(double numerator, double denominator) {
  if (denominator != 0) return numerator / denominator;
  if (numerator == 0) return 1.0;
  return numerator > 0 ? kInfinity : -kInfinity;
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty() || has_nan(values)) return kNaN;
  return median_in_place(values);
}

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty() || std::isnan(q)) return kNaN;
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return interpolate(sorted[below], sorted[above], position - static_cast<double>(below));
}

RankTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  if (unusable(a, b)) return kNoTest;
  const PooledRanks ranks = rank_pooled(a, b);
  const auto n1 = static_cast<double>(a.size());
  const double u_a = ranks.rank_sum_a - n1 * (n1 + 1) / 2;
  const bool exact = ranks.tie_term == 0 && a.size() + b.size() <= kMannWhitneyExactMaxTotal;
  return {u_a, exact ? mann_whitney_exact_p(a.size(), b.size(), u_a)
                     : mann_whitney_normal_p(a.size(), b.size(), u_a, ranks.tie_term)};
}

double smallest_two_sided_p(std::size_t n1, std::size_t n2) {
  // Each partial product is itself a binomial coefficient, so this is exact while below 2^53.
  const std::size_t smaller = std::min(n1, n2);
  const std::size_t larger = std::max(n1, n2);
  double orderings = 1;
  for (std::size_t i = 1; i <= smaller; ++i) {
    orderings = orderings * static_cast<double>(larger + i) / static_cast<double>(i);
  }
  return std::min(2 / orderings, 1.0);
}

RankTest kolmogorov_smirnov(const std::vector<double>& a, const std::vector<double>& b) {
  if (unusable(a, b)) return kNoTest;
  std::vector<double> sorted_a = a;
  std::vector<double> sorted_b = b;
  std::sort(sorted_a.begin(), sorted_a.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  const std::size_t n1 = a.size();
  const std::size_t n2 = b.size();
  // D * n1 * n2, kept as an integer so that the exact p-value compares cells without rounding.
  std::uint64_t widest_gap = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n1 || j < n2) {
    const double value =
        (j == n2 || (i < n1 && sorted_a[i] <= sorted_b[j])) ? sorted_a[i] : sorted_b[j];
    while (i < n1 && sorted_a[i] == value)
      ++i;
    while (j < n2 && sorted_b[j] == value)
      ++j;
    widest_gap = std::max(widest_gap, lattice_gap(i, j, n1, n2));
  }
  const double cells = static_cast<double>(n1) * static_cast<double>(n2);
  const double distance = static_cast<double>(widest_gap) / cells;
  if (widest_gap == 0) return {distance, 1.0};
  if (n1 * n2 <= kKolmogorovSmirnovExactMaxCells) {
    return {distance, kolmogorov_smirnov_exact_p(n1, n2, widest_gap)};
  }
  const double effective_size = cells / static_cast<double>(n1 + n2);
  return {distance, kolmogorov_survival(std::sqrt(effective_size) * distance)};
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& a, const std::vector<double>& b,
                                     int resamples, double confidence, std::uint64_t seed) {
  if (unusable(a, b)) return {kNaN, kNaN, kNaN};
  const double estimate = median_ratio(median(b), median(a));
  if (resamples < 1 || !(confidence > 0 && confidence < 1)) return {estimate, kNaN, kNaN};
  SplitMix64 random(seed);
  std::vector<double> resample_a(a.size());
  std::vector<double> resample_b(b.size());
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int round = 0; round < resamples; ++round) {
    resample(a, random, resample_a);
    resample(b, random, resample_b);
    ratios.push_back(median_ratio(median_in_place(resample_b), median_in_place(resample_a)));
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - confidence) / 2;
  return {estimate, quantile_sorted(ratios, tail), quantile_sorted(ratios, 1 - tail)};
}

double coefficient_of_variation(const std::vector<double>& values) {
  if (values.size() < 2 || has_nan(values)) return kNaN;
  const double mean =
      std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  if (mean == 0) return kNaN;
  double squares = 0;
  for (const double value : values)
    squares += (value - mean) * (value - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / std::fabs(mean);
}

double student_t_cdf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return kNaN;
  return t_cdf(t, df);
}

MeanDifference welch_t_test(const std::vector<double>& a, const std::vector<double>& b,
                            double confidence, VarianceFloor floor) {
  const MeanDifference none{kNaN, kNaN, kNaN, 1, kNaN};
  if (unusable(a, b) || (a.size() < 2 && b.size() < 2)) return none;
  Moments one = moments_of(a);
  Moments two = moments_of(b);
  if (a.size() >= 2) one.variance = std::max(one.variance, floor.a);
  if (b.size() >= 2) two.variance = std::max(two.variance, floor.b);
  double df = 0;
  if (a.size() < 2) {
    one.variance = std::max(two.variance, floor.a);
    df = two.n - 1;
  } else if (b.size() < 2) {
    two.variance = std::max(one.variance, floor.b);
    df = one.n - 1;
  } else {
    const double share_a = one.variance / one.n;
    const double share_b = two.variance / two.n;
    const double denominator = share_a * share_a / (one.n - 1) + share_b * share_b / (two.n - 1);
    df = denominator > 0 ? (share_a + share_b) * (share_a + share_b) / denominator
                         : one.n + two.n - 2;
  }
  const double difference = two.mean - one.mean;
  const double error = std::sqrt(one.variance / one.n + two.variance / two.n);
  if (!(error > 0)) return {difference, difference, difference, difference == 0 ? 1.0 : 0.0, df};
  const double p = 2 * (1 - t_cdf(std::fabs(difference / error), df));
  const double half = student_t_quantile(1 - (1 - confidence) / 2, df) * error;
  return {difference, difference - half, difference + half, std::clamp(p, 0.0, 1.0), df};
}

double student_t_quantile(double p, double df) {
  if (!(df > 0) || !(p > 0 && p < 1)) return kNaN;
  if (p == 0.5) return 0;
  // The t distribution is symmetric: search the upper half and mirror.
  const double upper = p > 0.5 ? p : 1 - p;
  double low = 0;
  double high = 1;
  while (t_cdf(high, df) < upper)
    high *= 2;
  constexpr int kBisections = 200;
  for (int step = 0; step < kBisections && high - low > 1e-12 * high; ++step) {
    const double middle = (low + high) / 2;
    (t_cdf(middle, df) < upper ? low : high) = middle;
  }
  const double quantile = (low + high) / 2;
  return p > 0.5 ? quantile : -quantile;
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return kNaN;
  const auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
  double low = -40;
  double high = 40;
  constexpr int kBisections = 200;
  for (int step = 0; step < kBisections && high - low > 1e-14; ++step) {
    const double middle = (low + high) / 2;
    (cdf(middle) < p ? low : high) = middle;
  }
  return (low + high) / 2;
}

double fisher_exact_two_sided(std::size_t with_a, std::size_t hosts_a, std::size_t with_b,
                              std::size_t hosts_b) {
  if (hosts_a == 0 || hosts_b == 0 || with_a > hosts_a || with_b > hosts_b) return 1.0;
  const std::size_t with = with_a + with_b;
  const std::size_t total = hosts_a + hosts_b;
  const auto log_choose = [](std::size_t n, std::size_t k) {
    return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
           std::lgamma(static_cast<double>(n - k) + 1);
  };
  const auto log_probability = [&](std::size_t k) {
    return log_choose(hosts_a, k) + log_choose(hosts_b, with - k) - log_choose(total, with);
  };
  const std::size_t low = with > hosts_b ? with - hosts_b : 0;
  const std::size_t high = std::min(with, hosts_a);
  // A relative tolerance: tables as likely as the observed one, up to rounding, count too.
  const double observed = log_probability(with_a) + 1e-7;
  double p = 0;
  for (std::size_t k = low; k <= high; ++k) {
    const double log_p = log_probability(k);
    if (log_p <= observed) p += std::exp(log_p);
  }
  return std::min(1.0, p);
}

}  // namespace kdrift
