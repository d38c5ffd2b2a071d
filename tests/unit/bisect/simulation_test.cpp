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
  EXPECT_LE(ours.median_boots, 5 + 3);  // ceil(log2 30) + 3
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

TEST(Simulation, TwoReferenceBootsSeeDriftThatOneBootCannot) {
  // Boots 10 % apart (CV) against a 10 % step: one boot a side calibrates on a single draw of
  // each endpoint's offset and then trusts in-boot statistics that cannot see it.
  SimulationSetting setting{32, 0.10, 0.05, 0.0, 60, 5};
  setting.boot_cv = 0.10;
  SearchConfig two_boots;
  two_boots.reference_boots = 2;
  const SimulationResult one = simulate_search(setting, SearchConfig{});
  const SimulationResult two = simulate_search(setting, two_boots);
  EXPECT_GT(one.wrong, 0);
  EXPECT_LT(two.wrong, one.wrong);
  EXPECT_GT(two.refused, one.refused);
}

}  // namespace
}  // namespace kdrift
