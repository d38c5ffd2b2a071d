#include "bisect/judge.h"

#include <gtest/gtest.h>

#include <vector>

namespace kdrift {
namespace {

std::vector<double> around(double level, std::size_t count) {
  // A fixed, symmetric spread of about 2 % around level.
  std::vector<double> values;
  for (std::size_t i = 0; i < count; ++i) {
    values.push_back(level * (1 + 0.004 * (static_cast<double>(i % 11) - 5)));
  }
  return values;
}

TEST(Judge, BadSideAndDifferentFromGoodIsBad) {
  const auto good = around(100, 20);
  const auto bad = around(90, 20);
  const Judgement judgement = judge(around(90.5, 8), good, bad, 0.001);
  EXPECT_EQ(judgement.verdict, Verdict::kBad) << judgement.reason;
  EXPECT_LT(judgement.p_vs_good, 0.001);
  EXPECT_NE(judgement.reason.find("bad side"), std::string::npos);
}

TEST(Judge, GoodSideAndDifferentFromBadIsGood) {
  const auto good = around(100, 20);
  const auto bad = around(90, 20);
  const Judgement judgement = judge(around(99.5, 8), good, bad, 0.001);
  EXPECT_EQ(judgement.verdict, Verdict::kGood) << judgement.reason;
  EXPECT_EQ(std::string(verdict_name(judgement.verdict)), "good");
}

TEST(Judge, LatencyWhereLowerIsBetterFollowsTheReferences) {
  const Judgement judgement = judge(around(210, 8), around(100, 20), around(200, 20), 0.001);
  EXPECT_EQ(judgement.verdict, Verdict::kBad) << judgement.reason;
}

TEST(Judge, TooFewSamplesToTellIsUnknownWithTheNumbers) {
  const Judgement judgement = judge({95, 96}, around(100, 20), around(90, 20), 0.001);
  EXPECT_EQ(judgement.verdict, Verdict::kUnknown);
  EXPECT_NE(judgement.reason.find("n = 2"), std::string::npos) << judgement.reason;
  EXPECT_EQ(judge({}, around(100, 5), around(90, 5), 0.01).verdict, Verdict::kUnknown);
}

TEST(Calibrate, ResolvableStepPassesWithItsNumbers) {
  const Calibration calibration = calibrate(around(100, 30), around(90, 30), 1e-4, 30);
  EXPECT_TRUE(calibration.resolvable) << calibration.reason;
  EXPECT_NEAR(calibration.effect, 0.10536, 1e-4);  // ln(100 / 90)
  EXPECT_LT(calibration.resolvable_effect, calibration.effect);
  EXPECT_NE(calibration.reason.find("effect 10.5 %"), std::string::npos) << calibration.reason;
}

TEST(Calibrate, StepInsideTheNoiseIsRefused) {
  // 3 % apart with a 10 % spread: no bisect of 30 samples a candidate can tell.
  std::vector<double> good;
  std::vector<double> bad;
  for (int i = 0; i < 30; ++i) {
    good.push_back(100 * (1 + 0.17 * ((i % 7) - 3) / 3.0));
    bad.push_back(97 * (1 + 0.17 * (((i + 3) % 7) - 3) / 3.0));
  }
  const Calibration calibration = calibrate(good, bad, 1e-4, 30);
  EXPECT_FALSE(calibration.resolvable);
  EXPECT_NE(calibration.reason.find("noise"), std::string::npos) << calibration.reason;
}

TEST(Calibrate, BootsOfOneEndpointThatDriftApartAreRefused) {
  // A 10 % step, and the good endpoint's two boots 6 % apart: more than half the step (the
  // medians of around() sit a little below its level).
  const ReferenceBoots drifting{{around(103, 15), around(97, 15)},
                                {around(90, 15), around(90, 15)}};
  const Calibration refused = calibrate(around(100, 30), around(90, 30), 1e-4, 30, drifting);
  EXPECT_FALSE(refused.resolvable);
  EXPECT_NEAR(refused.boot_drift, 0.0600, 1e-3);  // ln(103 / 97)
  EXPECT_NE(refused.reason.find("boot-to-boot drift 6.0 %"), std::string::npos) << refused.reason;
  EXPECT_NE(refused.reason.find("(good boots 102.176 / 96.224, bad boots"), std::string::npos)
      << refused.reason;

  const ReferenceBoots steady{{around(101, 15), around(99, 15)}, {around(90, 15), around(91, 15)}};
  const Calibration passed = calibrate(around(100, 30), around(90, 30), 1e-4, 30, steady);
  EXPECT_TRUE(passed.resolvable) << passed.reason;
  EXPECT_NE(passed.reason.find("boot-to-boot drift 2.0 %"), std::string::npos) << passed.reason;
}

TEST(Calibrate, EndpointsThatDoNotDifferAreRefused) {
  const Calibration calibration = calibrate(around(100, 30), around(100, 30), 1e-4, 30);
  EXPECT_FALSE(calibration.resolvable);
  EXPECT_NE(calibration.reason.find("do not differ"), std::string::npos) << calibration.reason;
  EXPECT_FALSE(calibrate({100}, {90}, 0.01, 30).resolvable);
}

}  // namespace
}  // namespace kdrift
