#include "bisect/judge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kdrift {
namespace {

// Boots at these levels, each of `runs` runs spread 2 % (in log) around its level.
BootLevels boots_at(const std::vector<double>& levels, int runs = 10) {
  BootLevels boots;
  for (const double level : levels)
    boots.push_back({std::log(level), runs * 0.02 * 0.02, runs});
  return boots;
}

// The references and candidate together, as the search pools them.
DriftEstimate pooled(const BootLevels& good, const BootLevels& bad) {
  return estimate_drift({good, bad});
}

const BootLevels kGood = boots_at({100, 100.5, 99.5}, 15);
const BootLevels kBad = boots_at({90, 90.4, 89.6}, 15);

TEST(Judge, BadSideAndDifferentFromGoodIsBad) {
  const Judgement judgement = judge(boots_at({90.5}), kGood, kBad, pooled(kGood, kBad), 0.001);
  EXPECT_EQ(judgement.verdict, CandidateVerdict::kBad) << judgement.reason;
  EXPECT_LT(judgement.p_vs_good, 0.001);
  EXPECT_NEAR(judgement.level, 90.5, 1e-9);
  EXPECT_NE(judgement.reason.find("bad side"), std::string::npos);
  EXPECT_NE(judgement.reason.find("1 boot(s) at 90.5"), std::string::npos) << judgement.reason;
}

TEST(Judge, GoodSideAndDifferentFromBadIsGood) {
  const Judgement judgement = judge(boots_at({99.5}), kGood, kBad, pooled(kGood, kBad), 0.001);
  EXPECT_EQ(judgement.verdict, CandidateVerdict::kGood) << judgement.reason;
  EXPECT_EQ(std::string(verdict_name(judgement.verdict)), "good");
}

TEST(Judge, LatencyWhereLowerIsBetterFollowsTheReferences) {
  const BootLevels good = boots_at({100, 101, 99}, 15);
  const BootLevels bad = boots_at({200, 202, 198}, 15);
  const Judgement judgement = judge(boots_at({210}), good, bad, pooled(good, bad), 0.001);
  EXPECT_EQ(judgement.verdict, CandidateVerdict::kBad) << judgement.reason;
}

TEST(Judge, ABootHalfwayOnDriftingBootsIsUnknownWithTheNumbers) {
  // Each endpoint's boots 8 % apart: one boot of a candidate near the midpoint tells nothing.
  const BootLevels good = boots_at({104, 96, 100}, 15);
  const BootLevels bad = boots_at({94, 86, 90}, 15);
  const Judgement judgement = judge(boots_at({93}), good, bad, pooled(good, bad), 0.001);
  EXPECT_EQ(judgement.verdict, CandidateVerdict::kInconclusive);
  EXPECT_NE(judgement.reason.find("not yet told apart: 1 boot(s)"), std::string::npos)
      << judgement.reason;
  EXPECT_NE(judgement.reason.find("degrees of freedom"), std::string::npos) << judgement.reason;
  EXPECT_EQ(judge({}, good, bad, pooled(good, bad), 0.01).verdict, CandidateVerdict::kInconclusive);
}

TEST(LookAlpha, EveryLookGetsItsShareAndTheSharesAddUpToTheCandidates) {
  EXPECT_NEAR(look_alpha(0.01, 6, 1), 0.01 / 6 / 2, 1e-15);
  EXPECT_NEAR(look_alpha(0.01, 6, 2), 0.01 / 6 / 6, 1e-15);
  double sum = 0;
  for (int look = 1; look <= 100000; ++look)
    sum += look_alpha(0.01, 6, look);
  EXPECT_NEAR(sum, 0.01 / 6, 1e-7);
}

SearchShape shape(int max_boots, int boots_used) {
  return {0.01, 6, 10, 15, max_boots, boots_used};
}

TEST(Calibrate, AStepOnSteadyBootsIsSearchedWithItsNumbers) {
  const Calibration calibration = calibrate(kGood, kBad, pooled(kGood, kBad), shape(60, 6), false);
  EXPECT_EQ(calibration.decision, Calibration::Decision::kSearch) << calibration.reason;
  EXPECT_NEAR(calibration.effect, std::log(100.0 / 90), 1e-3);
  EXPECT_GT(calibration.boots_needed, 6 + 6);  // the references so far, a boot a candidate
  EXPECT_LE(calibration.boots_needed_high, 60);
  EXPECT_NE(calibration.reason.find("effect 10.5 %"), std::string::npos) << calibration.reason;
  EXPECT_NE(calibration.reason.find("--max-boots 60"), std::string::npos) << calibration.reason;
}

TEST(Calibrate, DriftTheBudgetCannotBeatIsRefusedWithTheNumbers) {
  // Boots 10 % apart on each side against a 10 % step, six boots a side: no small budget does.
  const BootLevels good = boots_at({110, 90, 105, 95, 100, 100}, 15);
  const BootLevels bad = boots_at({99, 81, 94.5, 85.5, 90, 90}, 15);
  const Calibration refused = calibrate(good, bad, pooled(good, bad), shape(30, 12), false);
  EXPECT_EQ(refused.decision, Calibration::Decision::kRefuse) << refused.reason;
  EXPECT_GT(refused.drift, 0.05);
  EXPECT_NE(refused.reason.find("the budget cannot resolve the change"), std::string::npos)
      << refused.reason;
  EXPECT_NE(refused.reason.find("boot-to-boot drift"), std::string::npos) << refused.reason;
  EXPECT_NE(refused.reason.find("--max-boots 30"), std::string::npos) << refused.reason;
  // A budget that holds what it needs, even at the drift's upper bound, searches.
  const Calibration larger = calibrate(good, bad, pooled(good, bad), shape(2000, 12), false);
  EXPECT_EQ(larger.decision, Calibration::Decision::kSearch) << larger.reason;
  EXPECT_GT(larger.boots_needed, 100);
  EXPECT_LE(larger.boots_needed_high, 2000);
}

TEST(Calibrate, TwoBootsASideLeaveTheBudgetUndecidedUntilTheFinalCall) {
  // The boots 2 % apart: the drift could be nothing or several percent.
  const BootLevels good = boots_at({101, 99}, 15);
  const BootLevels bad = boots_at({91, 89.2}, 15);
  const DriftEstimate drift = pooled(good, bad);
  const Calibration open = calibrate(good, bad, drift, shape(25, 4), false);
  EXPECT_EQ(open.decision, Calibration::Decision::kMoreReferences) << open.reason;
  EXPECT_LT(open.boots_needed_low, open.boots_needed_high);
  EXPECT_NE(open.reason.find("not yet decided"), std::string::npos) << open.reason;
  // At the cap, the estimate decides.
  const Calibration last = calibrate(good, bad, drift, shape(25, 4), true);
  EXPECT_NE(last.decision, Calibration::Decision::kMoreReferences) << last.reason;
}

TEST(Calibrate, EndpointsThatDoNotDifferAreRefused) {
  const BootLevels good = boots_at({100, 100.5, 99.5}, 15);
  const BootLevels same = boots_at({100.2, 99.8, 100}, 15);
  const Calibration calibration = calibrate(good, same, pooled(good, same), shape(60, 6), false);
  EXPECT_EQ(calibration.decision, Calibration::Decision::kRefuse);
  EXPECT_EQ(calibration.boots_needed, 0);
  EXPECT_NE(calibration.reason.find("do not differ"), std::string::npos) << calibration.reason;
  EXPECT_NE(calibration.reason.find("over 600"), std::string::npos) << calibration.reason;
}

TEST(Calibrate, TheLargestBudgetIsPlannedInFewTriesAndAgreesWithASmallOne) {
  // --max-boots takes up to 100,000: plans are sought up to ten times that, which one boot count
  // per candidate at a time made a million tries of the statistics before a refusal.
  const BootLevels good = boots_at({100, 100.5, 99.5}, 15);
  const BootLevels same = boots_at({100.5, 99.5, 100}, 15);
  const Calibration hopeless = calibrate(good, same, pooled(good, same), shape(100000, 6), true);
  EXPECT_EQ(hopeless.decision, Calibration::Decision::kRefuse) << hopeless.reason;
  EXPECT_EQ(hopeless.boots_needed, 0);
  EXPECT_NE(hopeless.reason.find("over 1000000"), std::string::npos) << hopeless.reason;
  // A few thousand weighings for its three plans; one boot count at a time took 6 million.
  EXPECT_LT(hopeless.plans_weighed, 12000);
  // Where the plan is small, the budget does not change it.
  const Calibration small = calibrate(kGood, kBad, pooled(kGood, kBad), shape(60, 6), false);
  const Calibration large = calibrate(kGood, kBad, pooled(kGood, kBad), shape(100000, 6), false);
  EXPECT_EQ(large.boots_needed, small.boots_needed);
  EXPECT_EQ(large.boots_needed_high, small.boots_needed_high);
  // A step hundreds of boots deep is still planned, beyond the one-by-one range.
  const BootLevels wide_good = boots_at({110, 90, 105, 95, 100, 100}, 15);
  const BootLevels wide_bad = boots_at({101, 83, 96.6, 87.4, 92, 92}, 15);
  const Calibration deep =
      calibrate(wide_good, wide_bad, pooled(wide_good, wide_bad), shape(100000, 12), false);
  EXPECT_EQ(deep.decision, Calibration::Decision::kSearch) << deep.reason;
  EXPECT_GT(deep.boots_needed, 6 * 32) << deep.reason;
}

}  // namespace
}  // namespace kdrift
