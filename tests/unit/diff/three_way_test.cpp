#include "diff/three_way.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kdrift {
namespace {

RatioEstimate estimate(double ratio, double low, double high, double unit_variance = 0.01,
                       std::size_t now = 1) {
  return {ratio, low, high, 0.99, unit_variance, SampleUnit::kRounds, now};
}

TEST(ThreeWay, AnIntervalThatExcludesOneBeyondTheMarginIsAChange) {
  const Verdict slower = decide_ratio(estimate(0.7, 0.6, 0.8), true);
  EXPECT_TRUE(slower.regressed());
  ASSERT_TRUE(slower.bounds);
  EXPECT_DOUBLE_EQ(slower.bounds->high, 0.8);
  // Latency: higher is worse.
  EXPECT_TRUE(decide_ratio(estimate(1.4, 1.2, 1.6), false).regressed());
  EXPECT_TRUE(decide_ratio(estimate(1.4, 1.2, 1.6), true).improved());
}

TEST(ThreeWay, AnIntervalInsideTheMarginIsEquivalent) {
  EXPECT_EQ(decide_ratio(estimate(1.0, 0.97, 1.03), true).state, VerdictState::kEquivalent);
  // A real but small change is still equivalent: 2 % is no finding.
  EXPECT_EQ(decide_ratio(estimate(0.98, 0.97, 0.99), true).state, VerdictState::kEquivalent);
  // The band is symmetric in log terms: 1 / 0.95 = 1.0526 is inside, 1.06 is not.
  EXPECT_EQ(decide_ratio(estimate(1.0, 0.951, 1.052), true).state, VerdictState::kEquivalent);
  EXPECT_NE(decide_ratio(estimate(1.0, 0.951, 1.06), true).state, VerdictState::kEquivalent);
}

TEST(ThreeWay, NeitherIsInconclusiveWithWhatWouldDecideIt) {
  // The case: every B sample slower, the 95 % interval excluding 1, the verdict's not.
  const Verdict open = decide_ratio(estimate(0.72, 0.48, 1.08, 0.05, 2), true);
  EXPECT_EQ(open.state, VerdictState::kInconclusive);
  ASSERT_TRUE(open.decide);
  EXPECT_FALSE(open.decide->beyond_reach);
  EXPECT_GT(open.decide->needed, 2U);
  EXPECT_EQ(open.decide->now, 2U);
  // Excludes 1 but the ratio is inside the band and the interval reaches beyond it: more samples
  // tell whether the change is a small one.
  EXPECT_EQ(decide_ratio(estimate(0.97, 0.93, 0.995), true).state, VerdictState::kInconclusive);
}

TEST(ThreeWay, TheSamplesToDecideShrinkTheIntervalEnough) {
  const double variance = 0.04;  // a 20 % spread a sample a side
  for (const double ratio : {0.6, 0.8, 0.9, 1.0, 1.02}) {
    const DecidingSamples decide =
        samples_to_decide(ratio, variance, SampleUnit::kSnapshots, 1, 0.99, kEquivalenceMargin);
    ASSERT_FALSE(decide.beyond_reach) << ratio;
    // At that count the half-width at 99 % fits the room the verdict needs, with power to spare.
    const double half = 2.576 * std::sqrt(variance / static_cast<double>(decide.needed));
    const double distance = std::abs(std::log(ratio));
    const double band = -std::log(0.95);
    EXPECT_LT(half, distance > band ? distance : band - distance) << ratio;
  }
  // Bigger changes need fewer samples; a change on the margin itself needs more than any.
  EXPECT_LT(samples_to_decide(0.6, variance, SampleUnit::kRounds, 1, 0.99, 0.05).needed,
            samples_to_decide(0.8, variance, SampleUnit::kRounds, 1, 0.99, 0.05).needed);
  EXPECT_TRUE(samples_to_decide(0.9512, variance, SampleUnit::kRounds, 1, 0.99, 0.05).beyond_reach);
  EXPECT_TRUE(samples_to_decide(0.8, 0, SampleUnit::kRounds, 1, 0.99, 0.05).beyond_reach)
      << "no noise estimate, no count";
}

TEST(ThreeWay, NoEstimateIsInconclusive) {
  for (const double ratio : {std::nan(""), 0.0, -1.0, HUGE_VAL}) {
    const Verdict verdict = decide_ratio(estimate(ratio, 0.5, 1.5), true);
    EXPECT_EQ(verdict.state, VerdictState::kInconclusive) << ratio;
  }
  EXPECT_EQ(decide_ratio(estimate(0.7, std::nan(""), 0.8), true).state,
            VerdictState::kInconclusive);
}

}  // namespace
}  // namespace kdrift
