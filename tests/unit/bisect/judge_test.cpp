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

TEST(Calibrate, BootDriftThatHidesTheChangeIsRefused) {
  // A 10 % step, and the good endpoint's two boots 6 % apart: six boots a candidate cannot
  // place a boot that drifts like that at alpha.
  const ReferenceBoots drifting{{around(103, 15), around(97, 15)},
                                {around(90, 15), around(90, 15)}};
  EXPECT_NEAR(boot_drift(drifting), 0.030, 0.002);
  const Calibration refused = calibrate(around(100, 30), around(90, 30), 1e-4, 30, 5, drifting);
  EXPECT_FALSE(refused.resolvable);
  EXPECT_NE(refused.reason.find("boot-to-boot drift (SD of a boot's median) 3.0 %"),
            std::string::npos)
      << refused.reason;
  EXPECT_NE(refused.reason.find("resolvable with 6 boots"), std::string::npos) << refused.reason;
  EXPECT_NE(refused.reason.find("(good boots 102.176 / 96.224, bad boots"), std::string::npos)
      << refused.reason;

  const ReferenceBoots steady{{around(101, 15), around(99, 15)}, {around(90, 15), around(91, 15)}};
  const Calibration passed = calibrate(around(100, 30), around(90, 30), 1e-4, 30, 5, steady);
  EXPECT_TRUE(passed.resolvable) << passed.reason;
  EXPECT_LT(passed.boot_drift, 0.015);
}

TEST(PlaceBoots, BootsFarFromOneEndpointInDriftUnitsTakeTheOtherSide) {
  const ReferenceBoots references{{around(100, 15), around(98, 15)},
                                  {around(80, 15), around(82, 15)}};
  const double drift = boot_drift(references);
  ASSERT_GT(drift, 0);
  EXPECT_EQ(place_boots({around(81, 5)}, references, drift, 0.01).verdict, Verdict::kBad);
  EXPECT_EQ(place_boots({around(99, 5)}, references, drift, 0.01).verdict, Verdict::kGood);
  // Boots that drift 4 % apart: one boot halfway excludes neither endpoint, whatever the runs
  // inside it say.
  const ReferenceBoots drifting{{around(104, 15), around(96, 15)},
                                {around(84, 15), around(78, 15)}};
  const Judgement between = place_boots({around(90, 5)}, drifting, boot_drift(drifting), 0.01);
  EXPECT_EQ(between.verdict, Verdict::kUnknown);
  EXPECT_NE(between.reason.find("1 boot(s)"), std::string::npos) << between.reason;
  EXPECT_EQ(place_boots({}, references, drift, 0.01).verdict, Verdict::kUnknown);
  EXPECT_EQ(boot_drift({{around(100, 15)}, {around(80, 15)}}), 0);  // one boot a side
}

TEST(Calibrate, EndpointsThatDoNotDifferAreRefused) {
  const Calibration calibration = calibrate(around(100, 30), around(100, 30), 1e-4, 30);
  EXPECT_FALSE(calibration.resolvable);
  EXPECT_NE(calibration.reason.find("do not differ"), std::string::npos) << calibration.reason;
  EXPECT_FALSE(calibrate({100}, {90}, 0.01, 30).resolvable);
}

}  // namespace
}  // namespace kdrift
