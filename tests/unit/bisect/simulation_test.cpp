#include "bisect/simulation.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(Simulation, ClearStepsAreFoundInLog2PlusThreeBoots) {
  const SimulationSetting setting{32, 0.20, 0.02, 0.0, 40, 7};
  const SimulationResult ours = simulate_search(setting, SearchConfig{});
  EXPECT_EQ(ours.bisects, 40);
  EXPECT_EQ(ours.wrong, 0);
  EXPECT_EQ(ours.refused, 0);
  // ceil(log2 30) + 3, two more reference boots, which measure the drift from boot to boot, and a
  // second boot of the last good candidate, which the answer rests on.
  EXPECT_LE(ours.median_boots, 5 + 3 + 2 + 1);
}

TEST(Simulation, SingleSampleBaselineIsFooledByNoiseWhereTheSearchIsNot) {
  const SimulationSetting setting{32, 0.10, 0.05, 0.0, 60, 11};
  const SimulationResult ours = simulate_search(setting, SearchConfig{});
  const SimulationResult single = simulate_single_sample(setting);
  EXPECT_EQ(ours.wrong, 0);
  EXPECT_GT(single.wrong, 10);  // ~70 % in the full run of scripts/bench/bisect-sim
}

TEST(Simulation, CrashingCandidatesAreSkippedNotCountedAsBad) {
  const SimulationSetting setting{32, 0.20, 0.02, 0.2, 40, 3};
  const SimulationResult ours = simulate_search(setting, SearchConfig{});
  SimulationSetting booting = setting;
  booting.crash_rate = 0;
  const SimulationResult clean = simulate_search(booting, SearchConfig{});
  // A crash is a skip: never a wrong culprit, sometimes a culprit named with the skipped ones
  // beside it, and always paid for in boots (each crasher is tried max_attempts times).
  EXPECT_EQ(ours.wrong, 0);
  EXPECT_GT(ours.ambiguous, 0);
  EXPECT_EQ(clean.ambiguous, 0);
  EXPECT_GT(ours.p90_boots, clean.p90_boots);
}

TEST(Simulation, UnderBootDriftTheSearchStaysRightAndPaysInBoots) {
  // Boots 3 % apart (CV) against a 10 % step: runs inside a boot cannot average that out, boots
  // can, and cost more of them; the budget refuses what it cannot resolve.
  SimulationSetting setting{32, 0.10, 0.05, 0.0, 40, 5};
  const SimulationResult steady = simulate_search(setting, SearchConfig{});
  setting.boot_cv = 0.03;
  const SimulationResult drifting = simulate_search(setting, SearchConfig{});
  EXPECT_EQ(steady.wrong, 0);
  EXPECT_EQ(drifting.wrong, 0);
  EXPECT_EQ(steady.refused, 0);
  EXPECT_GT(drifting.median_boots, steady.median_boots);
  setting.boot_cv = 0.10;
  const SimulationResult hopeless = simulate_search(setting, SearchConfig{});
  EXPECT_EQ(hopeless.wrong, 0);
  EXPECT_GT(hopeless.refused, 30);
}

}  // namespace
}  // namespace kdrift
