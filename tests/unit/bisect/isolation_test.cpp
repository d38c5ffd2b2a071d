#include "bisect/isolation.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bisect/bisect_dir.h"
#include "bisect/step.h"

namespace kdrift {
namespace {

// Runs isolate() to the end against a rule for which sets are bad, answering each test it asks
// for, as step would across boots.
std::pair<std::vector<std::size_t>, int> isolate_with(
    std::size_t culprit, const std::function<bool(const std::set<std::size_t>&)>& is_bad) {
  std::map<std::vector<std::size_t>, bool> answered;
  for (int tests = 0; tests < 100; ++tests) {
    const Isolation isolation = isolate(culprit, [&](const std::vector<std::size_t>& set) {
      const auto found = answered.find(set);
      return found == answered.end() ? std::nullopt : std::optional<bool>(found->second);
    });
    if (isolation.state == Isolation::State::kDone) return {isolation.changes, tests};
    EXPECT_EQ(answered.count(isolation.changes), 0u) << "asked twice";
    EXPECT_NE(std::find(isolation.changes.begin(), isolation.changes.end(), culprit),
              isolation.changes.end());
    answered[isolation.changes] =
        is_bad(std::set<std::size_t>(isolation.changes.begin(), isolation.changes.end()));
  }
  ADD_FAILURE() << "isolation did not end";
  return {};
}

TEST(Isolation, ACulpritBadOnItsOwnNeedsOneTest) {
  const auto [needed, tests] = isolate_with(5, [](const auto& set) { return set.count(5) > 0; });
  EXPECT_EQ(needed, (std::vector<std::size_t>{5}));
  EXPECT_EQ(tests, 1);
}

TEST(Isolation, FindsTheEarlierChangesTheCulpritNeeds) {
  const auto [needed, tests] = isolate_with(
      7, [](const auto& set) { return set.count(7) > 0 && set.count(2) > 0 && set.count(5) > 0; });
  EXPECT_EQ(needed, (std::vector<std::size_t>{2, 5, 7}));
  EXPECT_LE(tests, 20);
}

TEST(Isolation, TheFirstChangeNeedsNoTest) {
  const auto [needed, tests] = isolate_with(0, [](const auto&) { return true; });
  EXPECT_EQ(needed, (std::vector<std::size_t>{0}));
  EXPECT_EQ(tests, 0);
}

// The whole command-line bisect through plan_step: intel_iommu=on and iommu.strict=1 are bad
// only together; the bisect names iommu.strict=1 and the isolation says it needs intel_iommu=on.
TEST(Isolation, CommandLineBisectReportsTheChangesNeededTogether) {
  BisectStart start;
  start.id = "c1";
  start.cmdline_good = "root=/dev/vda1";
  const std::string bad = "root=/dev/vda1 intel_iommu=on quiet iommu.strict=1 nowatchdog";
  start.cmdline_changes = cmdline_changes(start.cmdline_good, bad);
  start.candidates = cmdline_candidates(start.cmdline_good, bad, {"", "/k", "", "", "r1", "", ""});
  start.good = 0;
  start.bad = start.candidates.size() - 1;
  start.metric = FindingMetric{"iommu.strict"};
  start.mode = "kexec";
  start.config.declared = true;
  start.config.verify_endpoints = true;
  std::vector<Json> journal = {start_event(start)};
  int boot = 0;
  BootIdentity here{"boot-0", "r1", "root=/dev/vda1"};
  for (int steps = 0; steps < 60; ++steps) {
    const auto session = replay(journal, "journal");
    ASSERT_TRUE(session) << session.error().describe();
    const StepPlan plan = plan_step(*session, here);
    if (plan.kind == StepPlan::Kind::kFinished) break;
    if (plan.kind == StepPlan::Kind::kAddCandidate) {
      journal.push_back(candidate_event(plan.to_add));
      continue;
    }
    const Candidate& candidate = session->start.candidates[plan.candidate];
    if (plan.kind == StepPlan::Kind::kBoot) {
      journal.push_back(attempt_event(candidate.name, plan.attempt, here.boot_id));
      here = {"boot-" + std::to_string(++boot), "r1",
              candidate.append + " " + format_bisect_token("c1", plan.attempt)};
      continue;
    }
    ASSERT_EQ(plan.kind, StepPlan::Kind::kMeasureHere) << plan.why;
    const bool strict = candidate.append.find("intel_iommu=on") != std::string::npos &&
                        candidate.append.find("iommu.strict=1") != std::string::npos;
    Json event = verdict_event(candidate.name, strict ? "bad" : "good", "step");
    event["boot_id"] = here.boot_id;
    journal.push_back(event);
  }
  const auto session = replay(journal, "journal");
  ASSERT_TRUE(session);
  const Json report = bisect_report(*session);
  EXPECT_EQ(report["state"], "done") << report.dump(2);
  EXPECT_EQ(report["first_bad"], "+iommu.strict=1");
  EXPECT_EQ(report["needs"], Json({"+intel_iommu=on", "+iommu.strict=1"})) << report.dump(2);
}

// A measured command-line bisect run by step on a host whose strict IOMMU costs 10 %: every
// measurement recorded, boots counted. Returns the final report and the boots the search took
// until its answer (before any isolation test).
std::pair<Json, int> measured_cmdline_bisect(int max_boots) {
  BisectStart start;
  start.id = "c2";
  start.cmdline_good = "root=/dev/vda1";
  const std::string bad = "root=/dev/vda1 intel_iommu=on iommu.strict=1";
  start.cmdline_changes = cmdline_changes(start.cmdline_good, bad);
  start.candidates = cmdline_candidates(start.cmdline_good, bad, {"", "/k", "", "", "r1", "", ""});
  start.good = 0;
  start.bad = start.candidates.size() - 1;
  start.metric = ProbeMetric{"quick", "io_uring", 16, "iops"};
  start.mode = "manual";
  start.config.max_boots = max_boots;
  std::vector<Json> journal = {start_event(start)};
  int boot = 0;
  int search_boots = 0;
  for (int steps = 0; steps < 200; ++steps) {
    const auto session = replay(journal, "journal");
    EXPECT_TRUE(session) << session.error().describe();
    if (!search_boots && session->search.first_bad()) search_boots = session->search.boots_used();
    const SessionNext next = session_next(*session);
    if (next.action.kind != Action::Kind::kMeasure) break;
    if (next.to_add) {
      journal.push_back(candidate_event(*next.to_add));
      continue;
    }
    const Candidate& candidate = session->start.candidates[next.action.candidate];
    const bool strict = candidate.append.find("intel_iommu=on") != std::string::npos &&
                        candidate.append.find("iommu.strict=1") != std::string::npos;
    std::vector<double> values;
    for (int i = 0; i < next.action.samples; ++i)
      values.push_back((strict ? 90 : 100) * (1 + 0.004 * ((i % 5) - 2)));
    Json event = samples_event(candidate.name, values);
    if (next.action.fresh_boot) ++boot;
    event["boot_id"] = "boot-" + std::to_string(boot);
    journal.push_back(event);
  }
  return {bisect_report(*replay(journal, "journal")), search_boots};
}

TEST(Isolation, TheBudgetEndsTheIsolationNotTheAnswer) {
  const auto [report, search_boots] = measured_cmdline_bisect(SearchConfig{}.max_boots);
  EXPECT_EQ(report["state"], "done") << report.dump(2);
  EXPECT_EQ(report["first_bad"], "+iommu.strict=1");
  EXPECT_EQ(report["needs"], Json({"+intel_iommu=on", "+iommu.strict=1"})) << report.dump(2);
  // A budget the search's answer just fits: the answer, without what it needs.
  const auto [short_of, unused] = measured_cmdline_bisect(search_boots);
  EXPECT_EQ(short_of["state"], "done") << short_of.dump(2);
  EXPECT_EQ(short_of["first_bad"], "+iommu.strict=1");
  EXPECT_FALSE(short_of.contains("needs"));
  EXPECT_NE(short_of["why"].get<std::string>().find("no boot left in --max-boots to isolate"),
            std::string::npos)
      << short_of["why"];
}

}  // namespace
}  // namespace kdrift
