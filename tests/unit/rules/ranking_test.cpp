#include "rules/ranking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift {
namespace {

Rule make_rule(const std::string& id, double magnitude, Relevance relevance,
               std::vector<std::string> follows = {}) {
  Rule rule;
  rule.id = id;
  rule.magnitude = magnitude;
  rule.relevance = relevance;
  rule.follows = std::move(follows);
  return rule;
}

Finding make_finding(const Rule& rule, Direction direction, Severity severity) {
  Finding finding;
  finding.rule = &rule;
  finding.direction = direction;
  finding.severity = severity;
  return finding;
}

// One job of a comparison: its typed facts and an entry holding its verdict.
std::vector<JobComparison> compared_job(std::string_view engine, Pattern rw,
                                        const std::string& verdict, const std::string& name = "") {
  ProbeJob job;
  job.workload = "w";
  job.engine = *EngineMode::parse(engine);
  job.rw = rw;
  job.iodepth = 16;
  JobResult result(job);
  if (!name.empty()) result.name = name;
  Json entry = result.header_json();
  Verdict typed = Verdict::inconclusive();
  if (verdict == "regression" || verdict == "improvement") {
    typed = Verdict::changed(verdict == "regression" ? ChangeDirection::kRegression
                                                     : ChangeDirection::kImprovement);
  } else if (verdict == "only-in-a" || verdict == "only-in-b") {
    typed = Verdict::only_in(verdict == "only-in-a" ? Presence::kOnlyInA : Presence::kOnlyInB);
  }
  typed.write_to(entry);
  return {{result.facts(), std::move(entry), typed}};
}

std::vector<JobComparison> polled_job(const std::string& verdict) {
  return compared_job("io_uring+iopoll", Pattern::kRandRead, verdict);
}

std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& finding : findings)
    out.push_back(finding.rule->id);
  return out;
}

// The lab's poll-queues 2 → 0 pair under TCG: interrupt completion beat polling, so the polled job
// "improved". Without follows the direction-less io_poll change outscored its own cause.
TEST(Ranking, ConsequenceStaysAfterItsCauseWhateverTheProbeDid) {
  const Rule queues = make_rule("nvme.poll-queues", 0.4, Relevance::kPolled);
  const Rule io_poll = make_rule("block.io-poll", 0.2, Relevance::kPolled, {"nvme.poll-queues"});
  for (const char* verdict : {"improvement", "regression", "within-noise"}) {
    std::vector<Finding> findings = {
        make_finding(io_poll, Direction::kChanged, Severity::kWarning),
        make_finding(queues, Direction::kRegressed, Severity::kWarning)};
    rank_findings(findings, polled_job(verdict), RankOrder::kScore);
    EXPECT_EQ(ids(findings), (std::vector<std::string>{"nvme.poll-queues", "block.io-poll"}))
        << verdict;
    EXPECT_LE(findings[1].score, findings[0].score) << verdict;
  }
}

TEST(Ranking, WithoutFollowsTheProbeDecides) {
  const Rule queues = make_rule("nvme.poll-queues", 0.4, Relevance::kPolled);
  const Rule io_poll = make_rule("block.io-poll", 0.2, Relevance::kPolled);
  std::vector<Finding> findings = {make_finding(queues, Direction::kRegressed, Severity::kWarning),
                                   make_finding(io_poll, Direction::kChanged, Severity::kWarning)};
  rank_findings(findings, polled_job("improvement"), RankOrder::kScore);
  EXPECT_EQ(ids(findings), (std::vector<std::string>{"block.io-poll", "nvme.poll-queues"}));
}

// Relevance is judged on the job's typed facts: a job whose name reads "iopoll" or "write" is
// neither polled nor writing unless its engine mode and pattern say so.
TEST(Ranking, RelevanceFollowsTheJobsFactsNotItsName) {
  const Rule polled = make_rule("x.polled", 0.5, Relevance::kPolled);
  const Rule writes = make_rule("x.writes", 0.5, Relevance::kWrites);
  const auto score_of = [](const Rule& rule, const std::vector<JobComparison>& jobs) {
    std::vector<Finding> findings = {make_finding(rule, Direction::kRegressed, Severity::kWarning)};
    rank_findings(findings, jobs, RankOrder::kScore);
    return findings.front().score;
  };
  const auto misleading =
      compared_job("libaio", Pattern::kRandRead, "regression", "io_uring+iopoll write 4k qd16");
  const auto polled_job_regressed = polled_job("regression");
  const auto writes_regressed = compared_job("libaio", Pattern::kRandWrite, "regression");
  // A regression where the setting acts doubles the score; one elsewhere leaves it as it is.
  EXPECT_EQ(score_of(polled, polled_job_regressed), 2 * score_of(polled, misleading));
  EXPECT_EQ(score_of(writes, writes_regressed), 2 * score_of(writes, misleading));
  EXPECT_EQ(score_of(polled, writes_regressed), score_of(polled, misleading));
}

TEST(Ranking, ChainsOfCausesAreOrderedAndCyclesEnd) {
  const Rule first = make_rule("x.first", 0.1, Relevance::kAny);
  const Rule second = make_rule("x.second", 0.5, Relevance::kAny, {"x.first"});
  const Rule third = make_rule("x.third", 0.9, Relevance::kAny, {"x.second"});
  std::vector<Finding> chain = {make_finding(first, Direction::kRegressed, Severity::kWarning),
                                make_finding(second, Direction::kRegressed, Severity::kWarning),
                                make_finding(third, Direction::kRegressed, Severity::kWarning)};
  rank_findings(chain, {}, RankOrder::kScore);
  EXPECT_EQ(ids(chain), (std::vector<std::string>{"x.first", "x.second", "x.third"}));

  const Rule ping = make_rule("x.ping", 0.1, Relevance::kAny, {"x.pong"});
  const Rule pong = make_rule("x.pong", 0.2, Relevance::kAny, {"x.ping"});
  std::vector<Finding> cycle = {make_finding(ping, Direction::kRegressed, Severity::kWarning),
                                make_finding(pong, Direction::kRegressed, Severity::kWarning)};
  rank_findings(cycle, {}, RankOrder::kScore);  // must return
  std::vector<std::string> both = ids(cycle);
  std::sort(both.begin(), both.end());
  EXPECT_EQ(both, (std::vector<std::string>{"x.ping", "x.pong"}));
}

// Rules from a user's directory may chain and loop as they like; placing their findings must
// stay linear in what they name, not a pass per move.
TEST(Ranking, LongChainsAndRingsArePlacedInOneWalk) {
  constexpr std::size_t kRules = 1000;
  std::vector<Rule> chain;
  std::vector<Rule> ring;
  chain.reserve(kRules);
  ring.reserve(kRules);
  for (std::size_t i = 0; i < kRules; ++i) {
    const double magnitude = 0.001 * static_cast<double>(i + 1);
    std::vector<std::string> chain_cause;
    if (i > 0) chain_cause.push_back("c.r" + std::to_string(i - 1));
    chain.push_back(make_rule("c.r" + std::to_string(i), magnitude, Relevance::kAny, chain_cause));
    ring.push_back(make_rule("r.r" + std::to_string(i), magnitude, Relevance::kAny,
                             {"r.r" + std::to_string((i + 1) % kRules)}));
  }
  std::vector<Finding> findings;
  for (const auto* rules : {&chain, &ring}) {
    for (const auto& rule : *rules) {
      findings.push_back(make_finding(rule, Direction::kRegressed, Severity::kWarning));
    }
  }
  rank_findings(findings, {}, RankOrder::kScore);
  ASSERT_EQ(findings.size(), 2 * kRules);
  std::vector<std::string> chain_order;
  for (const auto& finding : findings) {
    if (finding.rule->id.starts_with("c.")) chain_order.push_back(finding.rule->id);
  }
  for (std::size_t i = 0; i < kRules; ++i) {
    EXPECT_EQ(chain_order[i], "c.r" + std::to_string(i));
  }
  std::vector<std::string> all = ids(findings);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end());
  for (std::size_t i = 1; i < findings.size(); ++i) {
    if (findings[i].rule->follows.empty()) continue;
    const auto& cause = findings[i].rule->follows.front();
    if (findings[i - 1].rule->id == cause) {
      EXPECT_LE(findings[i].score, findings[i - 1].score);
    }
  }
}

// A cause ranked above with other findings between: its consequence moves up next to it.
TEST(Ranking, AConsequenceIsListedRightAfterItsCause) {
  const Rule cause = make_rule("x.cause", 0.9, Relevance::kAny);
  const Rule other = make_rule("x.other", 0.5, Relevance::kAny);
  const Rule effect = make_rule("x.effect", 0.1, Relevance::kAny, {"x.cause"});
  std::vector<Finding> findings = {make_finding(effect, Direction::kRegressed, Severity::kWarning),
                                   make_finding(other, Direction::kRegressed, Severity::kWarning),
                                   make_finding(cause, Direction::kRegressed, Severity::kWarning)};
  rank_findings(findings, {}, RankOrder::kScore);
  EXPECT_EQ(ids(findings), (std::vector<std::string>{"x.cause", "x.effect", "x.other"}));
}

TEST(Ranking, CheckKeepsSeverityAboveFollows) {
  const Rule queues = make_rule("nvme.poll-queues", 0.4, Relevance::kPolled);
  const Rule iopoll =
      make_rule("io_uring.iopoll-unsupported", 0.3, Relevance::kPolled, {"nvme.poll-queues"});
  std::vector<Finding> findings = {make_finding(queues, Direction::kPresent, Severity::kInfo),
                                   make_finding(iopoll, Direction::kPresent, Severity::kWarning)};
  rank_findings(findings, {}, RankOrder::kSeverityThenScore);
  EXPECT_EQ(ids(findings),
            (std::vector<std::string>{"io_uring.iopoll-unsupported", "nvme.poll-queues"}));
}

}  // namespace
}  // namespace kdrift
