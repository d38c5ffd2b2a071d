#include "bisect/search.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "bisect/simulation.h"

namespace kdrift {
namespace {

DriveResult drive(Search& search, const std::function<double(std::size_t, int)>& sample,
                  const std::set<std::size_t>& crashing = {}) {
  return drive_search(
      search, [&](std::size_t candidate) { return !crashing.contains(candidate); }, sample);
}

// The tests' noise: a small deterministic wobble (1 %) around a level, so outcomes are exact.
double wobbled(double level, int i) {
  return level * (1 + 0.002 * ((i % 11) - 5));
}

std::vector<double> samples_at(double level, int count) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    values.push_back(wobbled(level, i));
  return values;
}

// A step at culprit.
std::function<double(std::size_t, int)> step_at(std::size_t culprit, double drop) {
  return [culprit, drop](std::size_t candidate, int i) {
    return wobbled(candidate >= culprit ? 100 * (1 - drop) : 100, i);
  };
}

TEST(Search, FindsTheStepInLog2Boots) {
  for (const std::size_t culprit : {1u, 7u, 20u, 31u}) {
    Search search(32, 0, 31);
    const DriveResult run = drive(search, step_at(culprit, 0.10));
    ASSERT_EQ(run.last.kind, Action::Kind::kDone) << run.last.why;
    ASSERT_TRUE(search.first_bad());
    EXPECT_EQ(*search.first_bad(), culprit);
    EXPECT_TRUE(search.state(culprit).retest_confirmed || culprit == 31);
    // Two references, a binary search over 30 candidates (5 boots), the retest.
    EXPECT_LE(run.boots, 2 + 5 + 1) << "culprit " << culprit;
    EXPECT_TRUE(search.could_also_be().empty());
  }
}

TEST(Search, ReferencesComeFirstBadEndpointFirst) {
  Search search(10, 0, 9);
  Action action = search.next();
  EXPECT_EQ(action.purpose, Action::Purpose::kReference);
  EXPECT_EQ(action.candidate, 9u);
  EXPECT_EQ(action.samples, SearchConfig{}.reference_samples);
  search.add_samples(9, std::vector<double>(30, 90.0));
  action = search.next();
  EXPECT_EQ(action.candidate, 0u);
}

TEST(Search, ReferenceBootsAlternateTheEndpointsOnFreshBoots) {
  SearchConfig config;
  config.reference_samples = 30;
  config.reference_boots = 2;
  Search search(10, 0, 9, config);
  const std::vector<std::pair<std::size_t, bool>> expected = {
      {9, false}, {0, false}, {9, true}, {0, true}};
  for (const auto& [candidate, fresh] : expected) {
    const Action action = search.next();
    ASSERT_EQ(action.purpose, Action::Purpose::kReference) << action.why;
    EXPECT_EQ(action.candidate, candidate) << action.why;
    EXPECT_EQ(action.fresh_boot, fresh) << action.why;
    EXPECT_EQ(action.samples, 15) << action.why;
    search.add_samples(candidate, std::vector<double>(15, candidate == 0 ? 100.0 : 90.0));
  }
  EXPECT_EQ(search.next().purpose, Action::Purpose::kBisect) << search.next().why;
}

// Samples whose boot decides their level: the bad endpoint's boots run 12 % apart, against a
// change of 16 % between the endpoints.
TEST(Search, BootToBootDriftAsLargeAsTheChangeIsRefused) {
  SearchConfig config;
  config.reference_boots = 2;
  Search search(10, 0, 9, config);
  search.add_samples(9, samples_at(90, 15));
  search.add_samples(0, samples_at(100, 15));
  search.add_samples(9, samples_at(80, 15));
  search.add_samples(0, samples_at(100, 15));
  const Action action = search.next();
  ASSERT_EQ(action.kind, Action::Kind::kRefused) << action.why;
  EXPECT_NE(action.why.find("boot-to-boot drift (SD of a boot's median) 5.9 %"), std::string::npos)
      << action.why;
  EXPECT_NE(action.why.find("bad boots 89.64 / 79.68"), std::string::npos) << action.why;
}

TEST(Search, WithBootDriftACandidatesBootsArePlacedAndMoreRoundsAreFreshBoots) {
  SearchConfig config;
  config.reference_boots = 2;
  Search search(10, 0, 9, config);
  // Each endpoint's two boots 7.5 % apart (drift 5.3 %) around levels 20 % apart: six boots of
  // a candidate can place it, one cannot.
  search.add_samples(9, samples_at(83, 15));
  search.add_samples(0, samples_at(103.8, 15));
  search.add_samples(9, samples_at(77, 15));
  search.add_samples(0, samples_at(96.3, 15));
  Action action = search.next();
  ASSERT_EQ(action.purpose, Action::Purpose::kBisect) << action.why;
  const std::size_t candidate = action.candidate;
  // A boot at the bad level: its runs say bad, but it is 3.5 drift SEs from good, not 3.7.
  search.add_samples(candidate, samples_at(80, 5));
  const Judgement& first = *search.state(candidate).judgement;
  EXPECT_EQ(first.verdict, Verdict::kUnknown) << first.reason;
  EXPECT_NE(first.reason.find("boot drift hides its boots"), std::string::npos) << first.reason;
  action = search.next();
  EXPECT_EQ(action.candidate, candidate);
  EXPECT_TRUE(action.fresh_boot) << action.why;
  EXPECT_NE(action.why.find("on a fresh boot"), std::string::npos) << action.why;
  // A second boot at the bad level places it (4.2 SEs).
  search.add_samples(candidate, samples_at(80, 5));
  EXPECT_EQ(search.state(candidate).judgement->verdict, Verdict::kBad)
      << search.state(candidate).judgement->reason;
}

TEST(Search, OneReferenceBootASideSeesNoBootDriftHoweverTheReferencesArrived) {
  // A step killed halfway resumes in the same boot: two measurements, still one boot.
  Search search(10, 0, 9);
  search.add_samples(9, std::vector<double>(15, 90.0));
  search.add_samples(9, std::vector<double>(15, 80.0));
  search.add_samples(0, std::vector<double>(15, 100.0));
  search.add_samples(0, std::vector<double>(15, 104.0));
  const auto calibration = search.calibration();
  ASSERT_TRUE(calibration.has_value());
  EXPECT_EQ(calibration->boot_drift, 0) << calibration->reason;
}

TEST(Search, ACandidateThatNeverBootsIsSkippedAndNamedAsPossible) {
  Search search(16, 0, 15);
  const DriveResult run = drive(search, step_at(8, 0.10), {8});
  ASSERT_EQ(run.last.kind, Action::Kind::kDone) << run.last.why;
  EXPECT_EQ(*search.first_bad(), 9u);
  EXPECT_EQ(search.could_also_be(), std::vector<std::size_t>{8});
  EXPECT_EQ(search.state(8).crashes, SearchConfig{}.max_attempts);
}

TEST(Search, NoiseItCannotResolveIsRefusedWithTheNumbers) {
  Search search(16, 0, 15);
  // A 1 % step under a 10 % wobble.
  const DriveResult run = drive(search, [](std::size_t candidate, int i) {
    return (candidate >= 8 ? 99.0 : 100.0) * (1 + 0.05 * ((i * 7 % 11) - 5) / 5.0);
  });
  EXPECT_EQ(run.last.kind, Action::Kind::kRefused);
  EXPECT_NE(run.last.why.find("noise"), std::string::npos) << run.last.why;
  EXPECT_FALSE(search.first_bad());
}

TEST(Search, AnEndpointThatNeverBootsIsRefused) {
  Search search(8, 0, 7);
  const DriveResult run = drive(search, step_at(4, 0.10), {7});
  EXPECT_EQ(run.last.kind, Action::Kind::kRefused);
  EXPECT_NE(run.last.why.find("bad endpoint"), std::string::npos) << run.last.why;
}

TEST(Search, SameRecordsGiveTheSameNextStep) {
  // What a replayed journal relies on: the plan is a function of what was recorded.
  Search first(16, 0, 15);
  Search second(16, 0, 15);
  const auto sample = step_at(5, 0.10);
  for (int step = 0; step < 6; ++step) {
    const Action a = first.next();
    const Action b = second.next();
    ASSERT_EQ(a.kind, Action::Kind::kMeasure);
    EXPECT_EQ(a.candidate, b.candidate);
    EXPECT_EQ(a.samples, b.samples);
    std::vector<double> values;
    values.reserve(static_cast<std::size_t>(a.samples));
    for (int i = 0; i < a.samples; ++i)
      values.push_back(sample(a.candidate, i));
    first.add_samples(a.candidate, values);
    second.add_samples(b.candidate, values);
  }
}

TEST(Search, JudgementAlphaSharesTheBisectsAlpha) {
  // 62 candidates between the endpoints: 6 visits; samples 5, 10, ..., 30: 6 looks; 2 tests.
  const Search search(64, 0, 63);
  EXPECT_NEAR(search.judgement_alpha(), 0.01 / (2 * 6 * 6), 1e-15);
}

TEST(Search, GoodMustComeBeforeBad) {
  EXPECT_THROW(Search(4, 3, 1), std::invalid_argument);
  EXPECT_THROW(Search(4, 0, 4), std::invalid_argument);
}

}  // namespace
}  // namespace kdrift
