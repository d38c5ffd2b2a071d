#include "diff/verdict_simulation.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(VerdictSimulation, ALargeLossIsFoundAndNoChangeIsRarelyCalled) {
  VerdictSetting setting;
  setting.trials = 200;
  setting.rounds = 3;
  setting.snapshots = 3;
  setting.effect = 0.3;
  const VerdictRates found = simulate_verdicts(setting);
  EXPECT_EQ(found.trials, 200);
  EXPECT_GE(found.regressions, 190);
  EXPECT_EQ(found.improvements, 0);
  setting.effect = 0;
  const VerdictRates none = simulate_verdicts(setting);
  EXPECT_LE(none.regressions + none.improvements, 6);
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
}

}  // namespace
}  // namespace kdrift
