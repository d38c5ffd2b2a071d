#include "bisect/boot_levels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace kdrift {
namespace {

// A boot whose runs sit at level exactly, spread symmetrically by spread (in log).
BootLevel boot_at(double level, int runs, double spread = 0.02) {
  BootLevel boot;
  boot.level = std::log(level);
  boot.runs = runs;
  boot.squares = runs * spread * spread;
  return boot;
}

TEST(BootLevels, ABootIsTheMeanLogOfItsRuns) {
  const BootLevels boots = boot_levels({100, 100, 81, 90, 90}, {2, 3});
  ASSERT_EQ(boots.size(), 2u);
  EXPECT_NEAR(boots[0].level, std::log(100), 1e-12);
  EXPECT_EQ(boots[0].squares, 0);
  EXPECT_EQ(boots[1].runs, 3);
  EXPECT_NEAR(boots[1].level, (std::log(81) + 2 * std::log(90)) / 3, 1e-12);
  // More boots than runs: the runs there are.
  EXPECT_EQ(boot_levels({1, 2}, {1, 5}).size(), 1u);
  EXPECT_TRUE(std::isnan(boot_levels({100, 0}, {2})[0].level));
}

TEST(BootLevels, BootsThatVaryOnlyByTheirRunsShowNoDrift) {
  // Boot levels 1 % apart from runs 5 % apart (ten runs a boot): what the runs explain.
  const BootLevels good = {boot_at(100, 10, 0.05), boot_at(101, 10, 0.05)};
  const BootLevels bad = {boot_at(90, 10, 0.05), boot_at(89.2, 10, 0.05)};
  const DriftEstimate drift = estimate_drift({good, bad});
  EXPECT_EQ(drift.between_df, 2);
  EXPECT_EQ(drift.noise_df, 36);
  EXPECT_NEAR(drift.run_part, 0.1, 1e-12);
  EXPECT_EQ(drift.drift_variance(), 0);
  // Unsure all the same: two boots a side cannot rule out a few percent.
  EXPECT_GT(std::sqrt(drift.drift_upper_variance(0.9)), 0.01);
  EXPECT_EQ(drift.drift_lower_variance(0.9), 0);
}

TEST(BootLevels, BootsThatDriftShowIt) {
  // Each endpoint's boots 8 % apart, runs 1 % apart: drift of about 5.7 %.
  const BootLevels good = {boot_at(104, 10, 0.01), boot_at(96, 10, 0.01)};
  const BootLevels bad = {boot_at(94, 10, 0.01), boot_at(86.5, 10, 0.01)};
  const DriftEstimate drift = estimate_drift({good, bad});
  const double estimate = std::sqrt(drift.drift_variance());
  EXPECT_NEAR(estimate, 0.057, 0.002);
  EXPECT_LT(std::sqrt(drift.drift_lower_variance(0.9)), estimate);
  EXPECT_GT(std::sqrt(drift.drift_upper_variance(0.9)), 2 * estimate);
  // A candidate's one boot adds nothing to the drift; its two boots add one degree of freedom.
  EXPECT_EQ(estimate_drift({good, bad, {boot_at(95, 10)}}).between_df, 2);
  EXPECT_EQ(estimate_drift({good, bad, {boot_at(95, 10), boot_at(97, 10)}}).between_df, 3);
  EXPECT_EQ(estimate_drift({}).drift_variance(), 0);
}

TEST(BootLevels, TheDriftEstimateIsUnbiasedWhateverTheBootsRuns) {
  // Boots of 15 and of 10 runs, lognormal runs and no drift: the mean square of boot levels is
  // what the runs' noise predicts, on average (the plan leans on it).
  std::mt19937_64 random(1);
  std::normal_distribution<double> noise(0, 0.05);
  double ratio = 0;
  constexpr int kTrials = 400;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<BootLevels> groups;
    for (int group = 0; group < 2; ++group) {
      std::vector<double> runs;
      std::vector<std::size_t> sizes;
      for (const std::size_t size : {15, 15, 15, 10, 10, 10}) {
        for (std::size_t i = 0; i < size; ++i)
          runs.push_back(std::exp(noise(random)));
        sizes.push_back(size);
      }
      groups.push_back(boot_levels(runs, sizes));
    }
    const DriftEstimate drift = estimate_drift(groups);
    ratio += drift.between / (drift.noise * drift.run_part);
  }
  EXPECT_NEAR(ratio / kTrials, 1.0, 0.05);
}

TEST(BootLevels, WithoutDriftALevelIsTheMeanOfAllRunsUnderDriftOfItsBoots) {
  const BootLevels boots = {boot_at(100, 10), boot_at(110, 30)};
  DriftEstimate quiet;
  quiet.noise = 0.0025;
  const LevelEstimate runs = estimate_level(boots, quiet);
  EXPECT_NEAR(runs.level, (10 * std::log(100) + 30 * std::log(110)) / 40, 1e-12);
  EXPECT_NEAR(runs.variance(quiet), 0.0025 / 40, 1e-12);
  DriftEstimate drifting = quiet;
  drifting.between_df = 5;
  drifting.between = 1;  // a drift far beyond the runs' noise
  const LevelEstimate levels = estimate_level(boots, drifting);
  EXPECT_NEAR(levels.level, (std::log(100) + std::log(110)) / 2, 1e-3);
  EXPECT_NEAR(levels.drift_part, 0.5, 1e-3);
}

TEST(BootLevels, ComparingLevelsCountsTheDriftsDegreesOfFreedom) {
  const BootLevels good = {boot_at(104, 10, 0.01), boot_at(96, 10, 0.01)};
  const BootLevels bad = {boot_at(94, 10, 0.01), boot_at(86.5, 10, 0.01)};
  const DriftEstimate drift = estimate_drift({good, bad});
  // 10 % apart, but on two boots a side that drift 5.7 %: not shown, and on few degrees of
  // freedom, however precise the runs.
  const LevelDifference apart = compare_levels(good, bad, drift);
  EXPECT_NEAR(apart.difference, std::log(0.9), 0.01);
  EXPECT_GT(apart.p, 0.05);
  EXPECT_LT(apart.df, 4);
  // Without drift the same levels are far apart on the runs' many degrees of freedom.
  const BootLevels steady_good = {boot_at(100, 10, 0.01), boot_at(100, 10, 0.01)};
  const BootLevels steady_bad = {boot_at(90, 10, 0.01), boot_at(90, 10, 0.01)};
  const LevelDifference steady =
      compare_levels(steady_good, steady_bad, estimate_drift({steady_good, steady_bad}));
  EXPECT_LT(steady.p, 1e-9);
  const LevelDifference none = compare_levels({}, bad, drift);
  EXPECT_TRUE(std::isnan(none.difference));
  EXPECT_EQ(none.p, 1);
}

}  // namespace
}  // namespace kdrift
