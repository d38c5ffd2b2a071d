// The bounds on the three-way verdict, held by simulation (diff/verdict_simulation.h) for
// each noise model and for one snapshot of one round, one snapshot of three rounds and three
// snapshots of three rounds a side: no change is called a change at most 1 % of the time, a 30 %
// loss is called equivalent at most 5 % of the time, and an inconclusive verdict's count of
// samples, taken, decides it. Seeds are fixed, so the counts are exact and the runs repeatable.
#include "diff/verdict_simulation.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

namespace kdrift {

// A model prints as its name in the test's name (ctest's list), not as its bytes.
void PrintTo(const VerdictNoise& noise, std::ostream* out) {
  *out << noise.name;
}

namespace {

struct Measuring {
  std::uint32_t rounds;
  std::size_t snapshots;
};

constexpr Measuring kMeasurings[] = {{1, 1}, {3, 1}, {3, 3}};

std::string describe(const VerdictNoise& noise, Measuring measuring) {
  return std::string(noise.name) + ", " + std::to_string(measuring.rounds) + " round(s), " +
         std::to_string(measuring.snapshots) + " snapshot(s) a side";
}

class VerdictRatesUnder : public ::testing::TestWithParam<VerdictNoise> {};

// 1000 trials a cell (at a true rate of 1 %, 10 expected; the bound is held at the count itself):
// a pair's bootstrap costs about a millisecond a trial, and the three models run as three tests.
//
// At most 1 % in every cell. The one that came closest, this VM's zram with one round a side
// (runs move 15 %, seconds 12 %), called a change in 2.5 % of 2000 pairs before the per-second
// stand-in for the run-to-run spread was taken 1.25 times (probe_compare.cpp).
int false_change_bound(int trials) {
  return trials / 100;
}

TEST_P(VerdictRatesUnder, NoChangeIsCalledAChangeAtMostOnePercent) {
  std::uint64_t seed = 11;
  for (const Measuring measuring : kMeasurings) {
    VerdictSetting setting{0, measuring.rounds, measuring.snapshots, 1000, seed++, GetParam()};
    setting.max_retake = 0;
    const VerdictRates rates = simulate_verdicts(setting);
    EXPECT_LE(rates.regressions + rates.improvements, false_change_bound(rates.trials))
        << describe(GetParam(), measuring);
    // The equivalence test at ±5 % on a 99 % interval passed in none of these cells when this
    // was written (at these noises it needs tens of samples a side): reported, not bounded.
    EXPECT_EQ(rates.equivalent + rates.regressions + rates.improvements + rates.inconclusive,
              rates.trials);
  }
}

TEST_P(VerdictRatesUnder, AThirtyPercentLossIsCalledEquivalentAtMostFivePercent) {
  std::uint64_t seed = 21;
  for (const Measuring measuring : kMeasurings) {
    VerdictSetting setting{0.3, measuring.rounds, measuring.snapshots, 200, seed++, GetParam()};
    setting.max_retake = 0;
    const VerdictRates rates = simulate_verdicts(setting);
    EXPECT_LE(rates.equivalent, rates.trials / 20) << describe(GetParam(), measuring);
    EXPECT_EQ(rates.improvements, 0) << describe(GetParam(), measuring);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, VerdictRatesUnder,
                         ::testing::Values(VerdictNoise{}, kZramNoise, kTcgLabNoise),
                         [](const ::testing::TestParamInfo<VerdictNoise>& info) {
                           std::string name;
                           for (const char letter : info.param.name) {
                             if (std::isalnum(static_cast<unsigned char>(letter)) != 0) {
                               name += letter;
                             } else if (!name.empty() && name.back() != '_') {
                               name += '_';
                             }
                           }
                           return name;
                         });

// A 30 % loss left inconclusive, re-run at the count its verdict named (made for 90 % power),
// is decided at least four times in five, and decided a regression.
TEST(VerdictSimulation, TheCountAnInconclusiveLossNamesDecidesIt) {
  VerdictSetting setting{0.3, 3, 3, 100, 31, kZramNoise};
  const VerdictRates rates = simulate_verdicts(setting);
  ASSERT_GE(rates.retaken, 20);
  EXPECT_GE(rates.retaken_decided * 5, rates.retaken * 4);
  EXPECT_EQ(rates.retaken_right, rates.retaken_decided);
}

TEST(VerdictSimulation, TooFewSecondsNameTheSecondsThatDecide) {
  VerdictNoise noise;
  noise.seconds = 3;  // a rank test on 3 and 3 samples cannot reach p < 0.01
  const VerdictRates rates = simulate_verdicts({0.3, 1, 1, 50, 41, noise});
  EXPECT_EQ(rates.inconclusive, 50);
  EXPECT_EQ(rates.retaken, 50);
  EXPECT_EQ(rates.most_needed, 5U);
  EXPECT_GE(rates.retaken_decided, 40);
}

TEST(VerdictSimulation, TheSameSeedGivesTheSameRates) {
  VerdictSetting setting;
  setting.trials = 50;
  setting.effect = 0.1;
  const VerdictRates first = simulate_verdicts(setting);
  const VerdictRates second = simulate_verdicts(setting);
  EXPECT_EQ(first.regressions, second.regressions);
  EXPECT_EQ(first.equivalent, second.equivalent);
  EXPECT_EQ(first.inconclusive, second.inconclusive);
  EXPECT_EQ(first.retaken_decided, second.retaken_decided);
}

}  // namespace
}  // namespace kdrift
