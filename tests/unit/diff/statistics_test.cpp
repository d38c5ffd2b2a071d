#include "diff/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

// Reference values come from SciPy 1.10.1 and NumPy 1.24 (Debian 12's python3-scipy); each
// assertion names the call that produced its number.

namespace kdrift {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::vector<double> counting(int count, double offset, double step = 1.0) {
  std::vector<double> values(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    values[static_cast<std::size_t>(i)] = offset + step * i;
  return values;
}

TEST(Median, MiddleValueOrMeanOfTheTwoMiddleOnes) {
  EXPECT_EQ(median({3, 1, 2}), 2.0);     // numpy.median([3, 1, 2])
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);  // numpy.median([4, 1, 3, 2])
  EXPECT_EQ(median({7}), 7.0);
}

TEST(Median, EmptyOrNaNIsNaN) {
  EXPECT_TRUE(std::isnan(median({})));
  EXPECT_TRUE(std::isnan(median({1, std::nan(""), 3})));
}

TEST(QuantileSorted, InterpolatesLinearlyLikeNumpy) {
  const std::vector<double> sorted = {1, 2, 4, 8, 16};
  // numpy.quantile([1, 2, 4, 8, 16], q)
  EXPECT_DOUBLE_EQ(quantile_sorted(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(sorted, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(quantile_sorted(sorted, 0.25), 2.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(sorted, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(sorted, 0.9), 12.8);
  EXPECT_DOUBLE_EQ(quantile_sorted(sorted, 1.0), 16.0);
}

TEST(QuantileSorted, ClampsQAndHandlesDegenerateInput) {
  EXPECT_EQ(quantile_sorted({1, 2, 3}, -0.5), 1.0);
  EXPECT_EQ(quantile_sorted({1, 2, 3}, 1.5), 3.0);
  EXPECT_EQ(quantile_sorted({5}, 0.3), 5.0);
  EXPECT_TRUE(std::isnan(quantile_sorted({}, 0.5)));
  EXPECT_TRUE(std::isnan(quantile_sorted({1, 2}, std::nan(""))));
}

TEST(QuantileSorted, InfiniteNeighbourGivesInfinityNotNaN) {
  EXPECT_EQ(quantile_sorted({1, kInfinity}, 0.75), kInfinity);
  EXPECT_EQ(quantile_sorted({1, kInfinity}, 0.25), kInfinity);
  EXPECT_EQ(quantile_sorted({-kInfinity, 1}, 0.75), -kInfinity);
  EXPECT_EQ(quantile_sorted({1, kInfinity, kInfinity}, 0.9), kInfinity);
}

TEST(MannWhitneyU, ExactWithoutTies) {
  const std::vector<double> a = {1.1, 2.3, 3.5, 4.2, 5.9, 7.4};
  const std::vector<double> b = {3.9, 6.1, 6.8, 8.2, 9.0, 10.5, 11.3};
  // scipy.stats.mannwhitneyu(a, b, method='exact')
  const RankTest forward = mann_whitney_u(a, b);
  EXPECT_EQ(forward.statistic, 5.0);
  EXPECT_DOUBLE_EQ(forward.p_value, 0.022144522144522144);
  // scipy.stats.mannwhitneyu(b, a, method='exact')
  const RankTest backward = mann_whitney_u(b, a);
  EXPECT_EQ(backward.statistic, 37.0);
  EXPECT_DOUBLE_EQ(backward.p_value, 0.022144522144522144);
}

TEST(MannWhitneyU, ExactAtTheSizeBound) {
  const std::vector<double> a = counting(32, 0.0, 2.0);
  const std::vector<double> b = counting(32, 9.5, 2.0);
  ASSERT_EQ(a.size() + b.size(), kMannWhitneyExactMaxTotal);
  // scipy.stats.mannwhitneyu([2.0 * i for i in range(32)], [2.0 * i + 9.5 for i in range(32)],
  //                          method='exact')
  const RankTest test = mann_whitney_u(a, b);
  EXPECT_EQ(test.statistic, 378.0);
  EXPECT_NEAR(test.p_value, 0.07290054567640286, 1e-12);
}

TEST(MannWhitneyU, AsymptoticWithTies) {
  // scipy.stats.mannwhitneyu([1, 2, 2, 3, 3, 3, 4, 5], [3, 4, 4, 5, 5, 6, 7, 7, 8],
  //                          method='asymptotic')
  const RankTest test = mann_whitney_u({1, 2, 2, 3, 3, 3, 4, 5}, {3, 4, 4, 5, 5, 6, 7, 7, 8});
  EXPECT_EQ(test.statistic, 7.5);
  EXPECT_NEAR(test.p_value, 0.006373133838085873, 1e-14);
}

TEST(MannWhitneyU, AsymptoticAboveTheSizeBound) {
  // scipy.stats.mannwhitneyu([float(i) for i in range(40)], [i + 7.5 for i in range(40)],
  //                          method='asymptotic')
  const RankTest test = mann_whitney_u(counting(40, 0.0), counting(40, 7.5));
  EXPECT_EQ(test.statistic, 528.0);
  EXPECT_NEAR(test.p_value, 0.008988007122138847, 1e-14);
}

TEST(MannWhitneyU, IdenticalSamplesGiveOne) {
  // scipy.stats.mannwhitneyu([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
  const RankTest tied = mann_whitney_u({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(tied.statistic, 12.5);
  EXPECT_EQ(tied.p_value, 1.0);
  // scipy.stats.mannwhitneyu([1, 4, 5, 8], [2, 3, 6, 7], method='exact')
  const RankTest interleaved = mann_whitney_u({1, 4, 5, 8}, {2, 3, 6, 7});
  EXPECT_EQ(interleaved.statistic, 8.0);
  EXPECT_EQ(interleaved.p_value, 1.0);
  const RankTest constant = mann_whitney_u({3, 3, 3}, {3, 3});
  EXPECT_EQ(constant.statistic, 3.0);
  EXPECT_EQ(constant.p_value, 1.0);
}

TEST(MannWhitneyU, FullySeparatedSamplesReachTheSmallestP) {
  // scipy.stats.mannwhitneyu([1, 2, 3, 4], [5, 6, 7, 8, 9], method='exact')
  const RankTest below = mann_whitney_u({1, 2, 3, 4}, {5, 6, 7, 8, 9});
  EXPECT_EQ(below.statistic, 0.0);
  EXPECT_DOUBLE_EQ(below.p_value, 0.015873015873015872);
  EXPECT_EQ(below.p_value, smallest_two_sided_p(4, 5));
  // scipy.stats.mannwhitneyu([15, 16, 17], [5, 6, 7, 8, 9], method='exact')
  const RankTest above = mann_whitney_u({15, 16, 17}, {5, 6, 7, 8, 9});
  EXPECT_EQ(above.statistic, 15.0);
  EXPECT_DOUBLE_EQ(above.p_value, 0.03571428571428571);
  EXPECT_EQ(above.p_value, smallest_two_sided_p(3, 5));
}

TEST(MannWhitneyU, EmptyOrNaNIsNoTest) {
  for (const RankTest& test : {mann_whitney_u({}, {1, 2}), mann_whitney_u({1, 2}, {}),
                               mann_whitney_u({}, {}), mann_whitney_u({1, std::nan("")}, {2})}) {
    EXPECT_TRUE(std::isnan(test.statistic));
    EXPECT_EQ(test.p_value, 1.0);
  }
}

TEST(SmallestTwoSidedP, TwoOverTheNumberOfOrderings) {
  EXPECT_DOUBLE_EQ(smallest_two_sided_p(4, 5), 2.0 / 126);
  EXPECT_DOUBLE_EQ(smallest_two_sided_p(5, 4), 2.0 / 126);
  EXPECT_DOUBLE_EQ(smallest_two_sided_p(5, 5), 2.0 / 252);
  // Three runs against three can never reach 0.05: C(6, 3) = 20 orderings, 2 / 20 = 0.1.
  EXPECT_DOUBLE_EQ(smallest_two_sided_p(3, 3), 0.1);
  EXPECT_EQ(smallest_two_sided_p(1, 1), 1.0);
  EXPECT_EQ(smallest_two_sided_p(0, 7), 1.0);
  EXPECT_GT(smallest_two_sided_p(60, 60), 0.0);
  EXPECT_LT(smallest_two_sided_p(60, 60), 1e-30);
}

TEST(KolmogorovSmirnov, ExactEqualSizes) {
  // scipy.stats.ks_2samp([0.61, 1.22, 1.75, 2.04, 2.93, 3.37, 4.11, 4.58],
  //                      [2.21, 2.86, 3.64, 4.49, 5.02, 5.73, 6.35, 7.18], method='exact')
  const RankTest test = kolmogorov_smirnov({0.61, 1.22, 1.75, 2.04, 2.93, 3.37, 4.11, 4.58},
                                           {2.21, 2.86, 3.64, 4.49, 5.02, 5.73, 6.35, 7.18});
  EXPECT_DOUBLE_EQ(test.statistic, 0.5);
  EXPECT_NEAR(test.p_value, 0.2826728826728826, 1e-13);
}

TEST(KolmogorovSmirnov, ExactUnequalSizesEitherWayRound) {
  const std::vector<double> a = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5};
  const std::vector<double> b = {3.1, 4.2, 5.3, 6.4, 7.6, 8.7, 9.8, 10.9, 11.1, 12.3};
  // scipy.stats.ks_2samp(a, b, method='exact') and ks_2samp(b, a, method='exact')
  for (const RankTest& test : {kolmogorov_smirnov(a, b), kolmogorov_smirnov(b, a)}) {
    EXPECT_DOUBLE_EQ(test.statistic, 0.6);
    EXPECT_NEAR(test.p_value, 0.07157548334018922, 1e-13);
  }
}

TEST(KolmogorovSmirnov, ExactKeepsTinyPValuesAccurate) {
  // scipy.stats.ks_2samp([float(i) for i in range(30)], [i + 100.0 for i in range(40)],
  //                      method='exact')
  const RankTest test = kolmogorov_smirnov(counting(30, 0.0), counting(40, 100.0));
  EXPECT_EQ(test.statistic, 1.0);
  EXPECT_NEAR(test.p_value / 3.6135170070159586e-20, 1.0, 1e-9);
}

TEST(KolmogorovSmirnov, AsymptoticAboveTheCellBound) {
  // 1200 * 1200 cells; b is a shifted by shift, so D = ceil(shift) / 1200 and the reference is
  // scipy.stats.kstwobign.sf(numpy.sqrt(600.0) * D).
  struct Case {
    double shift;
    double distance;
    double p_value;
  };
  for (const Case& expected :
       {Case{20.5, 21.0 / 1200, 0.9929023284237707}, Case{40.5, 41.0 / 1200, 0.4854186813641193},
        Case{100.5, 101.0 / 1200, 0.0004065977653277542}}) {
    const RankTest test = kolmogorov_smirnov(counting(1200, 0.0), counting(1200, expected.shift));
    EXPECT_DOUBLE_EQ(test.statistic, expected.distance) << expected.shift;
    EXPECT_NEAR(test.p_value / expected.p_value, 1.0, 1e-10) << expected.shift;
  }
}

TEST(KolmogorovSmirnov, IdenticalSamplesGiveOne) {
  const RankTest test = kolmogorov_smirnov({1, 2, 3, 4}, {4, 3, 2, 1});
  EXPECT_EQ(test.statistic, 0.0);
  EXPECT_EQ(test.p_value, 1.0);
}

TEST(KolmogorovSmirnov, EmptyOrNaNIsNoTest) {
  for (const RankTest& test : {kolmogorov_smirnov({}, {1}), kolmogorov_smirnov({1}, {}),
                               kolmogorov_smirnov({std::nan("")}, {1})}) {
    EXPECT_TRUE(std::isnan(test.statistic));
    EXPECT_EQ(test.p_value, 1.0);
  }
}

const std::vector<double> kBaseline = {102.0, 98.5, 110.2, 95.1,  101.7, 99.9,
                                       130.4, 97.3, 100.8, 104.6, 96.2,  103.3};
const std::vector<double> kCandidate = {108.1, 112.9, 105.4, 119.7, 111.0, 109.5, 150.2, 107.8,
                                        113.6, 110.4, 106.9, 115.3, 109.9, 104.2, 111.8};

TEST(BootstrapMedianRatio, MatchesAnIndependentReimplementation) {
  // The algorithm as documented, rewritten in Python: splitmix64 (its first output from seed 0 is
  // 0xe220a8397b1dcdaf), rejection below 2^64 mod n, numpy.median of each resample and
  // numpy.quantile(ratios, (1 - confidence) / 2) and (ratios, 1 - (1 - confidence) / 2). A change
  // here changes every interval kdrift has reported.
  const RatioInterval standard = bootstrap_median_ratio(kBaseline, kCandidate);
  EXPECT_DOUBLE_EQ(standard.estimate, 1.0903703703703704);
  EXPECT_DOUBLE_EQ(standard.low, 1.053093034583536);
  EXPECT_DOUBLE_EQ(standard.high, 1.1350253807106598);
  const RatioInterval seeded = bootstrap_median_ratio(kBaseline, kCandidate, 2000, 0.95, 42);
  EXPECT_DOUBLE_EQ(seeded.low, 1.0533910533910535);
  EXPECT_DOUBLE_EQ(seeded.high, 1.1346408986696757);
  const RatioInterval narrower = bootstrap_median_ratio(kBaseline, kCandidate, 500, 0.9);
  EXPECT_DOUBLE_EQ(narrower.low, 1.0600193610842208);
  EXPECT_DOUBLE_EQ(narrower.high, 1.127016129032258);
}

TEST(BootstrapMedianRatio, SameSeedSameInterval) {
  const RatioInterval first = bootstrap_median_ratio(kBaseline, kCandidate, 1000, 0.95, 7);
  const RatioInterval second = bootstrap_median_ratio(kBaseline, kCandidate, 1000, 0.95, 7);
  EXPECT_EQ(first.estimate, second.estimate);
  EXPECT_EQ(first.low, second.low);
  EXPECT_EQ(first.high, second.high);
  const RatioInterval other = bootstrap_median_ratio(kBaseline, kCandidate, 1000, 0.95, 8);
  EXPECT_TRUE(other.low != first.low || other.high != first.high);
}

// 60 values spread evenly over [low, low + width), in an order that is not sorted.
std::vector<double> spread(double low, double width, int stride) {
  std::vector<double> values(60);
  for (int i = 0; i < 60; ++i) {
    values[static_cast<std::size_t>(i)] = low + width * ((i * stride) % 60 + 0.5) / 60;
  }
  return values;
}

TEST(BootstrapMedianRatio, CoversTheTrueRatioAndExcludesOneWhenClearlyDifferent) {
  // The candidate's distribution is the baseline's scaled by 1.25.
  const std::vector<double> baseline = spread(100, 20, 37);
  const std::vector<double> candidate = spread(125, 25, 23);
  const RatioInterval interval = bootstrap_median_ratio(baseline, candidate);
  EXPECT_NEAR(interval.estimate, 1.25, 1e-12);
  EXPECT_LT(interval.low, 1.25);
  EXPECT_GT(interval.high, 1.25);
  EXPECT_GT(interval.low, 1.0);
}

TEST(BootstrapMedianRatio, CoversOneForTheSameDistribution) {
  const RatioInterval interval = bootstrap_median_ratio(spread(100, 20, 37), spread(100, 20, 23));
  EXPECT_EQ(interval.estimate, 1.0);
  EXPECT_LT(interval.low, 1.0);
  EXPECT_GT(interval.high, 1.0);
}

TEST(BootstrapMedianRatio, ZeroMedianDenominatorIsInfiniteNotACrash) {
  const RatioInterval unbounded = bootstrap_median_ratio({0, 0, 0, 1, 2}, {1, 2, 3, 4, 5});
  EXPECT_EQ(unbounded.estimate, kInfinity);
  EXPECT_EQ(unbounded.high, kInfinity);
  EXPECT_FALSE(std::isnan(unbounded.low));
  const RatioInterval both_zero = bootstrap_median_ratio({0, 0, 0}, {0, 0});
  EXPECT_EQ(both_zero.estimate, 1.0);
  EXPECT_EQ(both_zero.low, 1.0);
  EXPECT_EQ(both_zero.high, 1.0);
  const RatioInterval collapsed = bootstrap_median_ratio({1, 2, 3}, {0, 0, 0});
  EXPECT_EQ(collapsed.estimate, 0.0);
  EXPECT_EQ(collapsed.low, 0.0);
  EXPECT_EQ(collapsed.high, 0.0);
}

TEST(BootstrapMedianRatio, DegenerateInputs) {
  for (const RatioInterval& interval :
       {bootstrap_median_ratio({}, {1, 2}), bootstrap_median_ratio({1, 2}, {}),
        bootstrap_median_ratio({1, std::nan("")}, {1, 2})}) {
    EXPECT_TRUE(std::isnan(interval.estimate));
    EXPECT_TRUE(std::isnan(interval.low));
    EXPECT_TRUE(std::isnan(interval.high));
  }
  for (const RatioInterval& interval :
       {bootstrap_median_ratio({1, 2}, {2, 4}, 0), bootstrap_median_ratio({1, 2}, {2, 4}, 100, 1.0),
        bootstrap_median_ratio({1, 2}, {2, 4}, 100, 0.0)}) {
    EXPECT_EQ(interval.estimate, 2.0);
    EXPECT_TRUE(std::isnan(interval.low));
    EXPECT_TRUE(std::isnan(interval.high));
  }
}

TEST(StudentT, QuantilesMatchScipy) {
  // scipy.stats.t.ppf(p, df), scipy 1.10: accurate to ~1e-9 (its t.cdf of our 3.16927267262 for
  // df 10 is 0.995 - 4e-16, of its own 3.16927266718 0.995 - 5e-11).
  EXPECT_NEAR(student_t_quantile(0.995, 10), 3.169272667175838, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604094871415897, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736432095, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.9, 30), 1.3104150225671307, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.995, 100), 2.6258905205863337, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.005, 10), -3.169272667175838, 1e-8);
  EXPECT_EQ(student_t_quantile(0.5, 7), 0);
}

TEST(StudentT, OutOfDomainIsNaN) {
  EXPECT_TRUE(std::isnan(student_t_quantile(0.99, 0)));
  EXPECT_TRUE(std::isnan(student_t_quantile(0, 5)));
  EXPECT_TRUE(std::isnan(student_t_quantile(1, 5)));
  EXPECT_TRUE(std::isnan(student_t_quantile(std::nan(""), 5)));
}

TEST(CoefficientOfVariation, SampleSpreadOverMean) {
  // numpy.std(x, ddof=1) / numpy.mean(x)
  EXPECT_NEAR(coefficient_of_variation({8301, 9760, 7182, 7469, 8516, 6582}), 0.14209701850585657,
              1e-12);
  EXPECT_EQ(coefficient_of_variation({5, 5, 5}), 0);
  EXPECT_TRUE(std::isnan(coefficient_of_variation({5})));
  EXPECT_TRUE(std::isnan(coefficient_of_variation({-1, 1})));
  EXPECT_TRUE(std::isnan(coefficient_of_variation({1, std::nan("")})));
}

TEST(NormalQuantile, MatchesScipy) {
  // scipy.stats.norm.ppf(p), scipy 1.10.
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 1e-12);
  EXPECT_NEAR(normal_quantile(0.99), 2.3263478740408408, 1e-12);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-10);
  EXPECT_NEAR(normal_quantile(0.5), 0, 1e-13);
  EXPECT_TRUE(std::isnan(normal_quantile(0)));
  EXPECT_TRUE(std::isnan(normal_quantile(1)));
}

}  // namespace
}  // namespace kdrift

namespace kdrift {
namespace {

// References: Welch's formulas, the t tail integrated numerically (Simpson, 2e5 steps).
TEST(WelchTTest, MatchesTheFormulaWithSatterthwaiteDegrees) {
  const MeanDifference test = welch_t_test({1, 2, 3, 4}, {3, 4, 5, 6, 7});
  EXPECT_DOUBLE_EQ(test.difference, 2.5);
  EXPECT_NEAR(test.df, 6.980769, 1e-6);
  EXPECT_NEAR(test.p_value, 0.034939, 1e-5);
  // t(0.975, 6.98) * 0.957427 either side of 2.5.
  EXPECT_NEAR(test.high - test.difference, student_t_quantile(0.975, test.df) * 0.957427, 1e-5);
  EXPECT_NEAR(test.difference - test.low, test.high - test.difference, 1e-12);
  EXPECT_NEAR(welch_t_test({3, 4, 5, 6, 7}, {1, 2, 3, 4}).p_value, test.p_value, 1e-12);
}

TEST(WelchTTest, OneValueOnASideIsTestedAgainstTheOtherSidesSpread) {
  const MeanDifference test = welch_t_test({1, 2, 3, 4}, {10});
  EXPECT_DOUBLE_EQ(test.df, 3);
  EXPECT_NEAR(test.p_value, 0.013847, 1e-5);
  EXPECT_NEAR(welch_t_test({10}, {1, 2, 3, 4}).p_value, test.p_value, 1e-12);
}

TEST(WelchTTest, AVarianceFloorHoldsEachSideToTheNoiseKnownFromElsewhere) {
  // Floors below the sample variances change nothing.
  const MeanDifference plain = welch_t_test({1, 2, 3, 4}, {3, 4, 5, 6, 7});
  const MeanDifference low = welch_t_test({1, 2, 3, 4}, {3, 4, 5, 6, 7}, 0.95, {0.1, 0.1});
  EXPECT_DOUBLE_EQ(low.p_value, plain.p_value);
  // Values that agree by chance: the floor stands in for their variance, as if it were theirs.
  const MeanDifference floored = welch_t_test({0, 0.01}, {0.1, 0.11}, 0.95, {0.01, 0.01});
  const MeanDifference as_if = welch_t_test({-0.0657, 0.0757}, {0.0343, 0.1757});
  EXPECT_GT(floored.p_value, 0.3);
  EXPECT_NEAR(floored.p_value, as_if.p_value, 1e-3);
  EXPECT_DOUBLE_EQ(floored.difference, 0.1);
  // A side of one value takes the larger of the other side's variance and its own floor.
  EXPECT_GT(welch_t_test({0, 0.01, 0.02}, {0.1}, 0.95, {0, 0.04}).p_value,
            welch_t_test({0, 0.01, 0.02}, {0.1}).p_value);
}

TEST(WelchTTest, DegenerateSamples) {
  EXPECT_EQ(welch_t_test({1}, {2}).p_value, 1);
  EXPECT_TRUE(std::isnan(welch_t_test({}, {1, 2}).difference));
  EXPECT_EQ(welch_t_test({1, std::nan("")}, {1, 2}).p_value, 1);
  EXPECT_EQ(welch_t_test({2, 2}, {2, 2, 2}).p_value, 1);
  const MeanDifference apart = welch_t_test({2, 2}, {3, 3});
  EXPECT_EQ(apart.p_value, 0);
  EXPECT_EQ(apart.low, 1);
  EXPECT_TRUE(std::isnan(student_t_cdf(1, 0)));
  EXPECT_NEAR(student_t_cdf(0, 5), 0.5, 1e-12);
}

TEST(FisherExact, MatchesTheHypergeometricTables) {
  // 3 of 3 against 0 of 3: two of the 20 tables with these margins are as extreme.
  EXPECT_NEAR(fisher_exact_two_sided(3, 3, 0, 3), 0.1, 1e-9);
  EXPECT_NEAR(fisher_exact_two_sided(4, 4, 0, 4), 2.0 / 70.0, 1e-9);
  EXPECT_NEAR(fisher_exact_two_sided(0, 4, 4, 4), 2.0 / 70.0, 1e-9) << "two-sided: symmetric";
  // R's fisher.test(matrix(c(8, 2, 1, 5), 2)): p = 0.03497.
  EXPECT_NEAR(fisher_exact_two_sided(8, 10, 1, 6), 0.034965, 1e-5);
  EXPECT_NEAR(fisher_exact_two_sided(2, 4, 2, 4), 1.0, 1e-9);
}

TEST(FisherExact, DegenerateTablesGiveNoEvidence) {
  EXPECT_EQ(fisher_exact_two_sided(0, 0, 1, 3), 1.0);
  EXPECT_EQ(fisher_exact_two_sided(5, 3, 1, 3), 1.0);
  EXPECT_LE(fisher_exact_two_sided(1000, 1000, 0, 1000), 1e-100);
}

}  // namespace
}  // namespace kdrift
