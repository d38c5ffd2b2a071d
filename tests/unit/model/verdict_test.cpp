#include "model/verdict.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

Json written(const Verdict& verdict) {
  Json entry = {{"name", "job"}};
  verdict.write_to(entry);
  return entry;
}

TEST(Verdict, EveryStateSurvivesItsJson) {
  const RatioBounds bounds{0.7, 0.6, 0.8, 0.99};
  const Verdict regression = Verdict::changed(ChangeDirection::kRegression, bounds);
  const Verdict back = Verdict::from_json(written(regression));
  EXPECT_TRUE(back.regressed());
  EXPECT_EQ(back.state, VerdictState::kChanged);
  ASSERT_TRUE(back.bounds);
  EXPECT_DOUBLE_EQ(back.bounds->low, 0.6);
  EXPECT_DOUBLE_EQ(back.bounds->confidence, 0.99);
  EXPECT_EQ(written(regression)["verdict"], "regression");
  EXPECT_EQ(written(regression)["state"], "changed");

  EXPECT_TRUE(
      Verdict::from_json(written(Verdict::changed(ChangeDirection::kImprovement))).improved());
  const Verdict same = Verdict::from_json(written(Verdict::equivalent({1.0, 0.98, 1.02, 0.99})));
  EXPECT_EQ(same.state, VerdictState::kEquivalent);
  EXPECT_FALSE(same.change);

  const Verdict open = Verdict::inconclusive(DecidingSamples{SampleUnit::kRounds, 1, 4, false});
  const Json entry = written(open);
  EXPECT_EQ(entry["verdict"], "inconclusive");
  EXPECT_EQ(entry["decide"], Json({{"unit", "rounds"}, {"now", 1}, {"needed", 4}}));
  const Verdict read = Verdict::from_json(entry);
  ASSERT_TRUE(read.decide);
  EXPECT_EQ(read.decide->needed, 4U);
  EXPECT_FALSE(read.decide->beyond_reach);

  const Json far = written(Verdict::inconclusive(DecidingSamples{SampleUnit::kHosts, 3, 0, true}));
  EXPECT_EQ(far["decide"], Json({{"unit", "hosts"}, {"now", 3}, {"beyond_reach", true}}));
  EXPECT_TRUE(Verdict::from_json(far).decide->beyond_reach);
}

TEST(Verdict, OnlyOnOneSideIsNotACompared) {
  const Verdict only = Verdict::from_json(written(Verdict::only_in(Presence::kOnlyInA)));
  EXPECT_FALSE(only.compared());
  EXPECT_EQ(only.presence, Presence::kOnlyInA);
  EXPECT_EQ(written(Verdict::only_in(Presence::kOnlyInB))["verdict"], "only-in-b");
}

TEST(Verdict, ADamagedOrForeignEntryIsNeverADecision) {
  // A token without the state that backs it, an older kdrift's token, wrong types: inconclusive.
  for (const char* text :
       {R"({"verdict": "regression"})", R"({"verdict": "regression", "state": "equivalent"})",
        R"({"verdict": "no-significant-change"})", R"({"verdict": 7, "state": "changed"})",
        R"({"verdict": "equivalent", "state": "changed"})", R"([1, 2])", R"(null)",
        R"({"verdict": "inconclusive", "decide": {"unit": "parsecs", "now": 1, "needed": 2}})"}) {
    const Verdict verdict = Verdict::from_json(Json::parse(text));
    EXPECT_EQ(verdict.state, VerdictState::kInconclusive) << text;
    EXPECT_FALSE(verdict.change) << text;
    EXPECT_FALSE(verdict.decide) << text;
  }
}

TEST(Verdict, WritingReplacesWhatAnEntryHeld) {
  Json entry = written(Verdict::inconclusive(DecidingSamples{SampleUnit::kSeconds, 2, 5, false},
                                             RatioBounds{0.5, 0.2, 1.3, 0.99}));
  Verdict::equivalent({1, 0.99, 1.01, 0.99}).write_to(entry);
  EXPECT_FALSE(entry.contains("decide"));
  EXPECT_EQ(entry["interval"]["low"], 0.99);
  EXPECT_EQ(entry["name"], "job");
}

}  // namespace
}  // namespace kdrift
