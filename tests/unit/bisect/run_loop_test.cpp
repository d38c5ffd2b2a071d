#include "bisect/run_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "memory_journal.h"

namespace kdrift {
namespace {

using bisect_test::MemoryJournal;
using bisect_test::start_for;

TEST(RunVerdict, GitBisectRunsProtocol) {
  EXPECT_EQ(run_verdict(0), "good");
  EXPECT_EQ(run_verdict(125), "skip");
  EXPECT_EQ(run_verdict(1), "bad");
  EXPECT_EQ(run_verdict(127), "bad");
  EXPECT_EQ(run_verdict(128), std::nullopt);
  EXPECT_EQ(run_verdict(139), std::nullopt);  // killed by SIGSEGV
}

// Candidates k0..k7; the command says bad from the culprit on and skip for the ones in skips.
CandidateCommand command_with_culprit(std::size_t culprit, std::vector<std::string> skips,
                                      std::vector<std::string>* ran) {
  return [culprit, skips, ran](const Candidate& candidate) -> Result<int> {
    ran->push_back(candidate.name);
    if (std::find(skips.begin(), skips.end(), candidate.name) != skips.end()) return 125;
    return std::stoul(candidate.name.substr(1)) >= culprit ? 1 : 0;
  };
}

TEST(RunVerdicts, TheCommandJudgesUntilTheSearchHasItsAnswer) {
  MemoryJournal journal(start_for(8, DeclaredMetric{}, "manual"));
  std::vector<std::string> ran;
  std::ostringstream out;
  const auto session =
      run_verdicts(journal.session(), command_with_culprit(5, {"k4"}, &ran), journal, out);
  ASSERT_TRUE(session) << session.error().describe();
  const auto first_bad = session->search.first_bad();
  ASSERT_TRUE(first_bad);
  EXPECT_EQ(session->start.candidates[*first_bad].name, "k5");
  EXPECT_NE(std::find(ran.begin(), ran.end(), "k4"), ran.end());
  // One line and one recorded verdict per run, in the order they ran.
  std::size_t lines = 0;
  for (const char c : out.str())
    lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, ran.size());
  EXPECT_NE(out.str().find("k4: skip (exit 125)\n"), std::string::npos);
  EXPECT_EQ(journal.events.size(), 1 + ran.size());
  EXPECT_EQ(journal.events.back()["by"], "run");
}

TEST(RunVerdicts, AStatusFromASignalStopsAndRecordsNothingForIt) {
  MemoryJournal journal(start_for(8, DeclaredMetric{}, "manual"));
  std::ostringstream out;
  std::vector<std::string> ran;
  const CandidateCommand judged = command_with_culprit(5, {}, &ran);
  // The third run is killed by SIGSEGV.
  const auto crashed = run_verdicts(
      journal.session(),
      [&](const Candidate& candidate) -> Result<int> {
        return ran.size() == 2 ? 139 : judged(candidate);
      },
      journal, out);
  ASSERT_FALSE(crashed);
  EXPECT_NE(crashed.error().describe().find("exited 139"), std::string::npos);
  EXPECT_NE(crashed.error().describe().find("the bisect is kept"), std::string::npos);
  EXPECT_EQ(journal.events.size(), 3u);  // the start and the two verdicts before it
}

TEST(RunVerdicts, ACommandThatCannotStartIsNeverAVerdict) {
  MemoryJournal journal(start_for(8, DeclaredMetric{}, "manual"));
  std::ostringstream out;
  const auto failed = run_verdicts(
      journal.session(),
      [](const Candidate&) -> Result<int> { return make_error(ENOENT, "no-such-command"); },
      journal, out);
  ASSERT_FALSE(failed);
  EXPECT_EQ(journal.events.size(), 1u);
  EXPECT_TRUE(out.str().empty());
}

TEST(VerdictTarget, TheNamedCandidateOrTheOneUnderTest) {
  MemoryJournal journal(start_for(8, DeclaredMetric{}, "manual"));
  EXPECT_EQ(*verdict_target(journal.session(), "k3", journal), "k3");
  const auto next = journal.session().search.next();
  ASSERT_EQ(next.kind, Action::Kind::kMeasure);
  EXPECT_EQ(*verdict_target(journal.session(), "", journal),
            journal.session().start.candidates[next.candidate].name);
  EXPECT_EQ(journal.events.size(), 1u);  // naming a target records nothing
}

TEST(VerdictTarget, AnEndedBisectWantsANamedCandidate) {
  MemoryJournal journal(start_for(2, DeclaredMetric{}, "manual"));
  std::vector<std::string> ran;
  std::ostringstream out;
  const auto done =
      run_verdicts(journal.session(), command_with_culprit(1, {}, &ran), journal, out);
  ASSERT_TRUE(done) << done.error().describe();
  const auto target = verdict_target(*done, "", journal);
  ASSERT_FALSE(target);
  EXPECT_NE(target.error().describe().find("name the candidate"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
