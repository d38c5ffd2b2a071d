#include "bisect/session.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

BisectStart declared_start(int count) {
  BisectStart start;
  start.id = "b1";
  for (int i = 0; i < count; ++i) {
    start.candidates.push_back({"k" + std::to_string(i), "/boot/vmlinuz-" + std::to_string(i), "",
                                "root=/dev/vda1", "", "", ""});
  }
  start.good = 0;
  start.bad = static_cast<std::size_t>(count - 1);
  start.metric = DeclaredMetric{};
  start.mode = "manual";
  start.config.declared = true;
  return start;
}

TEST(DeclaredSearch, AsksEachCandidateOnceAndFindsTheFirstBad) {
  for (const std::size_t culprit : {1u, 9u, 15u}) {
    Search search(16, 0, 15, SearchConfig{.declared = true});
    int questions = 0;
    for (Action action = search.next(); action.kind == Action::Kind::kMeasure;
         action = search.next()) {
      EXPECT_EQ(action.samples, 0);
      ++questions;
      search.declare(action.candidate, action.candidate >= culprit ? CandidateVerdict::kBad
                                                                   : CandidateVerdict::kGood);
    }
    EXPECT_EQ(*search.first_bad(), culprit);
    EXPECT_LE(questions, 4);  // ceil(log2 14)
  }
}

TEST(DeclaredSearch, SkippedCandidatesAreNamedAsPossible) {
  Search search(8, 0, 7, SearchConfig{.declared = true});
  for (Action action = search.next(); action.kind == Action::Kind::kMeasure;
       action = search.next()) {
    const std::size_t candidate = action.candidate;
    search.declare(candidate, candidate == 4 ? CandidateVerdict::kInconclusive
                                             : (candidate >= 4 ? CandidateVerdict::kBad
                                                               : CandidateVerdict::kGood));
  }
  EXPECT_EQ(*search.first_bad(), 5u);
  EXPECT_EQ(search.could_also_be(), std::vector<std::size_t>{4});
}

TEST(Session, ReplayingTheJournalGivesTheSameState) {
  const BisectStart start = declared_start(8);
  const std::vector<Json> events = {start_event(start), verdict_event("k4", "bad", "user"),
                                    verdict_event("k2", "good", "run"),
                                    verdict_event("k3", "skip", "user")};
  const auto session = replay(events, "journal.jsonl");
  ASSERT_TRUE(session) << session.error().describe();
  EXPECT_EQ(session->start.candidates[3].kernel, "/boot/vmlinuz-3");
  EXPECT_EQ(session->start.candidates[3].append, "root=/dev/vda1");
  EXPECT_TRUE(session->start.config.declared);
  ASSERT_EQ(session->search.next().kind, Action::Kind::kDone);
  EXPECT_EQ(*session->search.first_bad(), 4u);
  EXPECT_EQ(session->search.could_also_be(), std::vector<std::size_t>{3});
}

TEST(Session, SamplesAndCrashesReachThePerformanceSearch) {
  BisectStart start = declared_start(4);
  start.metric = ProbeMetric{"lab-quick", "io_uring", 16, "iops"};
  start.config = SearchConfig{};
  const auto session = replay(
      {start_event(start), crash_event("k1"), samples_event("k3", {90, 91, 89})}, "journal.jsonl");
  ASSERT_TRUE(session) << session.error().describe();
  EXPECT_EQ(session->search.state(3).samples.size(), 3u);
  EXPECT_EQ(session->search.state(1).crashes, 1);
  const Action next = session->search.next();
  EXPECT_EQ(next.candidate, 3u);  // the bad endpoint's first reference boot is not complete yet
  EXPECT_FALSE(next.fresh_boot);
  EXPECT_EQ(next.samples, SearchConfig{}.reference_samples / SearchConfig{}.reference_boots - 3);
}

TEST(Session, ReferenceBootsAndTheBudgetSurviveTheJournalAndOlderJournalsLoad) {
  BisectStart start = declared_start(4);
  start.metric = ProbeMetric{"lab-quick", "io_uring", 16, "iops"};
  start.config = SearchConfig{};
  start.config.reference_boots = 3;
  start.config.max_boots = 90;
  const auto session = replay({start_event(start)}, "journal.jsonl");
  ASSERT_TRUE(session) << session.error().describe();
  EXPECT_EQ(session->start.config.reference_boots, 3);
  EXPECT_EQ(session->start.config.max_boots, 90);
  // The bad endpoint's first boot takes a third of the references.
  EXPECT_EQ(session->search.next().samples, SearchConfig{}.reference_samples / 3);

  // The version before the budget: its default.
  Json before_budget = start_event(start);
  before_budget["config"].erase("max_boots");
  const auto budgeted = replay({before_budget}, "journal.jsonl");
  ASSERT_TRUE(budgeted) << budgeted.error().describe();
  EXPECT_EQ(budgeted->start.config.max_boots, SearchConfig{}.max_boots);
  EXPECT_EQ(budgeted->start.config.reference_boots, 3);

  // The versions before reference boots meant one a side.
  Json older = before_budget;
  older["config"].erase("reference_boots");
  const auto old_session = replay({older}, "journal.jsonl");
  ASSERT_TRUE(old_session) << old_session.error().describe();
  EXPECT_EQ(old_session->start.config.reference_boots, 1);
  EXPECT_EQ(old_session->search.next().samples, SearchConfig{}.reference_samples);
}

TEST(Session, BadJournalsAreNamedWithTheEvent) {
  const Json start = start_event(declared_start(4));
  Json bad_good = start;
  bad_good["good"] = "k3";
  bad_good["bad"] = "k1";
  Json bad_config = start;
  bad_config["config"]["max_samples"] = -3;
  Json bad_metric = start;
  bad_metric["metric"] = "probe:quick";
  const std::pair<std::vector<Json>, const char*> cases[] = {
      {{}, "j: no events"},
      {{verdict_event("k1", "good", "user")}, "j: event 1: the first event must be the start"},
      {{start, verdict_event("k9", "good", "user")}, "j: event 2: no candidate named \"k9\""},
      {{start, verdict_event("k1", "maybe", "user")}, "j: event 2: verdict must be good, bad"},
      {{start, Json{{"event", "reboot"}, {"candidate", "k1"}}}, "j: event 2: unknown event"},
      {{start, samples_event("k1", {})}, "j: event 2: samples without values"},
      {{start, Json{{"event", "samples"}, {"candidate", "k1"}, {"values", {"x"}}}},
       "j: event 2: a sample is not a number"},
      {{bad_good}, "the good candidate must come before the bad one"},
      {{bad_config}, "config is out of range"},
      {{bad_metric}, "j: event 1: --metric probe:quick: expected probe:PROFILE"},
      {{Json{{"event", "start"}}}, "the start event needs id, metric, mode and candidates"},
  };
  for (const auto& [events, message] : cases) {
    const auto session = replay(events, "j");
    ASSERT_FALSE(session) << message;
    EXPECT_NE(session.error().describe().find(message), std::string::npos)
        << session.error().describe();
  }
}

TEST(Session, CandidatesAddedByTheJournalAreFoundByNameAndTheirNamesTakenOnce) {
  const Json start = start_event(declared_start(4));
  const Candidate added{"iso1", "/boot/vmlinuz-1", "", "root=/dev/vda1 a=1", "", "", ""};
  auto session = replay({start, candidate_event(added), verdict_event("iso1", "bad", "user")}, "j");
  ASSERT_TRUE(session) << session.error().describe();
  EXPECT_EQ(session->start.candidates.size(), 5u);
  EXPECT_EQ(session->search.state(4).declared, CandidateVerdict::kBad);
  const auto twice = replay({start, candidate_event(added), candidate_event(added)}, "j");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().describe().find("event 3: a new candidate needs a name not taken"),
            std::string::npos);
  const auto taken = replay({start, candidate_event({"k2", "", "", "", "", "", ""})}, "j");
  ASSERT_FALSE(taken);
}

}  // namespace
}  // namespace kdrift
