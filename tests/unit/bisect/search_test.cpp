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

// A boot's factor on all of its samples: the drift the search must see.
std::function<double(std::size_t, int)> drifting_step_at(std::size_t culprit, double drop,
                                                         const std::vector<double>& factors,
                                                         const int& boot) {
  return [culprit, drop, &factors, &boot](std::size_t candidate, int i) {
    const double factor = factors[static_cast<std::size_t>(boot) % factors.size()];
    return factor * wobbled(candidate >= culprit ? 100 * (1 - drop) : 100, i);
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
    // Two reference boots a side, a binary search over 30 candidates (5 boots), a second boot of
    // the last good candidate, the retest.
    EXPECT_LE(run.boots, 4 + 5 + 1 + 1) << "culprit " << culprit;
    EXPECT_GE(search.state(culprit - 1).boot_sizes.size(), culprit > 1 ? 2u : 0u);
    EXPECT_TRUE(search.could_also_be().empty());
  }
}

TEST(Search, ReferencesComeFirstBadEndpointFirst) {
  Search search(10, 0, 9);
  Action action = search.next();
  EXPECT_EQ(action.purpose, Action::Purpose::kReference);
  EXPECT_EQ(action.candidate, 9u);
  EXPECT_EQ(action.samples, SearchConfig{}.reference_samples / SearchConfig{}.reference_boots);
  search.add_samples(9, samples_at(90, action.samples));
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
    search.add_samples(candidate, samples_at(candidate == 0 ? 100.0 : 90.0, 15));
  }
  EXPECT_EQ(search.next().purpose, Action::Purpose::kBisect) << search.next().why;
  EXPECT_EQ(search.calibration()->decision, Calibration::Decision::kSearch);
}

TEST(Search, ReferenceBootsGoOnWhileTheBudgetDecisionIsOpen) {
  // Boots 3 % apart on both sides: the drift could be anything from nothing to several percent,
  // which decides whether 40 boots resolve a 10 % step.
  SearchConfig config;
  config.max_boots = 40;
  Search search(64, 0, 63, config);
  for (const double factor : {1.015, 0.985}) {
    search.add_samples(63, samples_at(90 * factor, 15));
    search.add_samples(0, samples_at(100 * factor, 15));
  }
  const Action action = search.next();
  EXPECT_EQ(action.purpose, Action::Purpose::kReference) << action.why;
  EXPECT_EQ(action.candidate, 63u);
  EXPECT_TRUE(action.fresh_boot);
  EXPECT_NE(action.why.find("not yet decided"), std::string::npos) << action.why;
  EXPECT_NE(action.why.find("within the drift's bounds"), std::string::npos) << action.why;
}

TEST(Search, BootToBootDriftTheBudgetCannotResolveIsRefusedWithTheNumbers) {
  // Six boots a side that drift 6 % against a 10 % step, and 30 boots for the whole bisect.
  SearchConfig config;
  config.max_boots = 30;
  Search search(64, 0, 63, config);
  for (const double factor : {1.08, 0.92, 1.04, 0.96, 1.0, 1.0}) {
    search.add_samples(63, samples_at(90 * factor, 15));
    search.add_samples(0, samples_at(100 / factor, 15));
  }
  const Action action = search.next();
  ASSERT_EQ(action.kind, Action::Kind::kRefused) << action.why;
  EXPECT_NE(action.why.find("the budget cannot resolve the change"), std::string::npos)
      << action.why;
  EXPECT_NE(action.why.find("boot-to-boot drift 5."), std::string::npos) << action.why;
  EXPECT_NE(action.why.find("--max-boots 30"), std::string::npos) << action.why;
  EXPECT_FALSE(search.first_bad());
}

// Runs spread 10 % (or width * 5) around level, the same way in every boot.
std::vector<double> spread_at(double level, int count, double width = 0.02) {
  std::vector<double> values;
  for (int i = 0; i < count; ++i)
    values.push_back(level * (1 + width * ((i % 11) - 5)));
  return values;
}

TEST(Search, WithoutDriftMoreRunsStayInTheBootWithDriftTheyTakeAFreshOne) {
  // A candidate halfway between the endpoints stays unknown, so its next round shows the choice.
  for (const bool drifting : {false, true}) {
    Search search(10, 0, 9);
    const std::vector<double> factors = {1.03, 0.97, 0.98, 1.02};
    for (std::size_t boot = 0; boot < 4; ++boot) {
      const double factor = drifting ? factors[boot] : 1;
      search.add_samples(9, spread_at(90 * factor, 15));
      search.add_samples(0, spread_at(100 / factor, 15));
    }
    Action action = search.next();
    for (std::size_t boot = 4; action.purpose == Action::Purpose::kReference; ++boot) {
      const double factor = factors[boot % factors.size()];
      search.add_samples(action.candidate,
                         spread_at(action.candidate == 0 ? 100 / factor : 90 * factor, 15));
      action = search.next();
    }
    ASSERT_EQ(action.purpose, Action::Purpose::kBisect) << action.why;
    search.add_samples(action.candidate, spread_at(95.5, action.samples, 0.04));
    ASSERT_EQ(search.state(action.candidate).judgement->verdict, CandidateVerdict::kInconclusive)
        << search.state(action.candidate).judgement->reason;
    const Action more = search.next();
    if (drifting) {
      EXPECT_TRUE(more.fresh_boot) << more.why;
    } else {
      EXPECT_EQ(more.candidate, action.candidate) << more.why;
      EXPECT_FALSE(more.fresh_boot) << more.why;
      EXPECT_NE(more.why.find("more runs in this boot"), std::string::npos) << more.why;
    }
  }
}

TEST(Search, ACandidatesBootsArePlacedByTheDriftPooledOverEveryBoot) {
  // Every boot of a kernel shifted by its own factor: the search names the culprit all the same,
  // spending more than one boot on the candidates the drift leaves unsure.
  const std::vector<double> factors = {1.02, 0.985, 1.0, 0.97, 1.015, 0.995, 1.03, 0.98, 1.01};
  int boot = 0;
  Search search(32, 0, 31);
  const DriveResult run = drive_search(
      search,
      [&](std::size_t) {
        ++boot;
        return true;
      },
      drifting_step_at(13, 0.10, factors, boot));
  ASSERT_EQ(run.last.kind, Action::Kind::kDone) << run.last.why;
  EXPECT_EQ(*search.first_bad(), 13u);
  EXPECT_GT(search.drift().drift_variance(), 0);
  EXPECT_GT(search.drift().between_df, 6);  // candidates' boots joined the endpoints'
}

TEST(Search, AStepKilledHalfwayResumesInTheSameBoot) {
  Search search(10, 0, 9);
  search.add_samples(9, samples_at(90, 5));
  const Action rest = search.next();
  EXPECT_EQ(rest.candidate, 9u);
  EXPECT_FALSE(rest.fresh_boot);
  EXPECT_EQ(rest.samples, 10);
  search.add_samples(9, samples_at(90, 10));
  EXPECT_EQ(search.state(9).boot_sizes, std::vector<std::size_t>{15});
  EXPECT_EQ(search.state(9).rounds, 2);
}

TEST(Search, TheBudgetEndsTheBisectWithTheNumbers) {
  // Boots that drift so much that no verdict comes before 20 boots are spent.
  SearchConfig config;
  config.max_boots = 20;
  Search search(64, 0, 63, config);
  for (int boot = 0; boot < 2; ++boot) {
    search.add_samples(63, samples_at(90, 15));
    search.add_samples(0, samples_at(100, 15));
  }
  const std::vector<double> factors = {1.06, 0.94, 1.03, 0.97};
  int boot = 0;
  const DriveResult run = drive_search(
      search,
      [&](std::size_t) {
        ++boot;
        return true;
      },
      drifting_step_at(40, 0.10, factors, boot));
  EXPECT_EQ(search.boots_used(), 20);
  ASSERT_EQ(run.last.kind, Action::Kind::kRefused) << run.last.why;
  EXPECT_NE(run.last.why.find("the budget of 20 boots (--max-boots) is spent"), std::string::npos)
      << run.last.why;
  EXPECT_NE(run.last.why.find("boot-to-boot drift"), std::string::npos) << run.last.why;
  EXPECT_FALSE(search.first_bad());
}

TEST(Search, TheAnswerWaitsUntilNoSingleBootDecidesIt) {
  // Candidate 1 is good, 2 bad; the search closes in on them after a boot each.
  Search search(4, 0, 3);
  for (int boot = 0; boot < 2; ++boot) {
    search.add_samples(3, spread_at(90, 15));
    search.add_samples(0, spread_at(100, 15));
  }
  Action action = search.next();
  while (action.why.find("settle") == std::string::npos) {
    ASSERT_EQ(action.kind, Action::Kind::kMeasure) << action.why;
    search.add_samples(action.candidate,
                       spread_at(action.candidate < 2 ? 100 : 90, action.samples));
    action = search.next();
  }
  EXPECT_EQ(action.candidate, 1u);
  EXPECT_TRUE(action.fresh_boot);
  EXPECT_NE(action.why.find("the last good candidate on another boot"), std::string::npos)
      << action.why;
  // A second boot at the bad level: the good verdict now rests on the first boot alone.
  search.add_samples(1, spread_at(90, action.samples));
  action = search.next();
  EXPECT_EQ(action.kind, Action::Kind::kMeasure);
  EXPECT_EQ(action.candidate, 1u) << action.why;
  for (int step = 0; step < 20 && action.kind == Action::Kind::kMeasure; ++step) {
    search.add_samples(action.candidate,
                       spread_at(action.candidate < 2 ? 100 : 90, action.samples));
    action = search.next();
  }
  ASSERT_EQ(action.kind, Action::Kind::kDone) << action.why;
  EXPECT_EQ(*search.first_bad(), 2u);
  EXPECT_GE(search.state(1).boot_sizes.size(), 3u);
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
  // The first look gets half; the answer's two verdicts share alpha over 6 visits (62 candidates
  // between the endpoints), the steering ones take 5 % each.
  const Search search(64, 0, 63);
  EXPECT_NEAR(search.judgement_alpha(1), 0.05 / 2, 1e-15);
  EXPECT_NEAR(search.answer_alpha(1), 0.01 / 6 / 2, 1e-15);
  EXPECT_NEAR(search.answer_alpha(3), 0.01 / 6 / 12, 1e-15);
}

TEST(Search, GoodMustComeBeforeBad) {
  EXPECT_THROW(Search(4, 3, 1), std::invalid_argument);
  EXPECT_THROW(Search(4, 0, 4), std::invalid_argument);
}

TEST(Search, TheCandidateNearestTheCentreIsAskedTheLowerOfTwoFirst) {
  // Even and odd widths: the centre a candidate, or between two.
  const std::pair<std::size_t, std::vector<std::size_t>> cases[] = {
      {11, {5, 4, 6, 3, 7, 2, 8, 1, 9}}, {10, {4, 5, 3, 6, 2, 7, 1, 8}}, {3, {1}}};
  for (const auto& [count, order] : cases) {
    Search search(count, 0, count - 1, SearchConfig{.declared = true});
    std::vector<std::size_t> asked;
    for (Action action = search.next(); action.kind == Action::Kind::kMeasure;
         action = search.next()) {
      asked.push_back(action.candidate);
      search.declare(action.candidate,
                     CandidateVerdict::kInconclusive);  // skip: the next nearest is asked
    }
    EXPECT_EQ(asked, order) << count << " candidates";
    EXPECT_EQ(*search.first_bad(), count - 1);
    EXPECT_EQ(search.could_also_be().size(), count - 2);
  }
}

TEST(Search, TheBoundsComeFromTheVerdictsAnywhereAmongManyCandidates) {
  Search search(100'000, 0, 99'999, SearchConfig{.declared = true});
  search.declare(70'000, CandidateVerdict::kBad);
  search.declare(90'000, CandidateVerdict::kBad);
  search.declare(30'000, CandidateVerdict::kGood);
  search.declare(10'000, CandidateVerdict::kGood);
  search.declare(80'000, CandidateVerdict::kGood);  // after the first bad: not the last good
  const Action action = search.next();
  ASSERT_EQ(action.kind, Action::Kind::kMeasure);
  EXPECT_EQ(action.candidate, 50'000u);
  EXPECT_NE(action.why.find("39999 left"), std::string::npos) << action.why;
}

}  // namespace
}  // namespace kdrift
