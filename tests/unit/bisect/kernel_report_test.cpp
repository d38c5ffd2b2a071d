#include "bisect/kernel_report.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "memory_journal.h"
#include "support/fixtures.h"
#include "util/process.h"

namespace kdrift {
namespace {

using bisect_test::MemoryJournal;
using testing::TempDir;

class FakeFacts : public KernelFacts {
 public:
  std::map<std::string, CommitInfo> commits;
  std::map<std::string, std::string> configs;
  Result<CommitInfo> commit(const std::string& sha) override {
    const auto found = commits.find(sha);
    if (found == commits.end()) return content_error("unknown commit " + sha);
    return found->second;
  }
  Result<Kconfig> config(const std::string& name) override {
    const auto found = configs.find(name);
    if (found == configs.end()) return content_error("no config " + name);
    return Kconfig::parse(found->second, name);
  }
  Result<KconfigSymbolHelp> help(const std::string& symbol) override {
    if (symbol != "INTEL_IOMMU_DEFAULT_ON") return content_error("no help for " + symbol);
    KconfigSymbolHelp help;
    help.file = "drivers/iommu/intel/Kconfig";
    help.type = "bool \"Enable Intel DMA Remapping Devices by default\"";
    help.help = "Selecting this option will enable a DMAR device at boot time.";
    return help;
  }
};

BisectStart commits_start(const std::vector<std::string>& shas) {
  BisectStart start;
  start.id = "b1";
  for (const std::string& sha : shas) {
    Candidate candidate;
    candidate.name = sha.substr(0, 12);
    candidate.commit = sha;
    start.candidates.push_back(candidate);
  }
  start.bad = shas.size() - 1;
  start.metric = DeclaredMetric{};
  start.mode = "command";
  start.config.declared = true;
  KernelSource source;
  source.tree = "/src/linux";
  source.boot_command = "/lab/boot";
  start.kernel_source = source;
  return start;
}

// Marks candidates as a declared bisect would, culprit and later bad, skips skipped.
Session judged(MemoryJournal& journal, std::size_t culprit, const std::set<std::size_t>& skips) {
  Session session = journal.session();
  for (Action next = session.search.next(); next.kind == Action::Kind::kMeasure;
       next = session.search.next()) {
    const std::string& name = session.start.candidates[next.candidate].name;
    const std::string verdict = skips.count(next.candidate) != 0 ? "skip"
                                : next.candidate >= culprit      ? "bad"
                                                                 : "good";
    session = *journal.record(verdict_event(name, verdict, "boot"));
  }
  return session;
}

// git's output, or "FAILED: " and it when git did not exit 0 (or could not run).
std::string git(const std::string& dir, std::vector<std::string> words) {
  std::vector<std::string> argv = {"git", "-C", dir};
  argv.insert(argv.end(), words.begin(), words.end());
  ProcessOptions options;
  options.capture_output = true;
  options.environment = {{"GIT_AUTHOR_NAME", "A"},     {"GIT_AUTHOR_EMAIL", "a@example.org"},
                         {"GIT_COMMITTER_NAME", "A"},  {"GIT_COMMITTER_EMAIL", "a@example.org"},
                         {"GIT_CONFIG_NOSYSTEM", "1"}, {"HOME", dir}};
  auto ran = run_process(argv, options);
  return ran && ran->exit_status == 0 ? ran->output : "FAILED: " + (ran ? ran->output : "");
}

// A repository of ten commits, "change 0" .. "change 9", and their facts.
std::vector<std::string> ten_commits(const TempDir& repo, FakeFacts& facts) {
  git(repo.path(), {"init", "-q"});
  std::vector<std::string> shas;
  for (int i = 0; i < 10; ++i) {
    repo.write("file", std::to_string(i));
    git(repo.path(), {"add", "file"});
    git(repo.path(), {"commit", "-q", "-m", "change " + std::to_string(i)});
    std::string sha = git(repo.path(), {"rev-parse", "HEAD"});
    sha.pop_back();
    shas.push_back(sha);
    facts.commits[sha] = {
        sha,         "change " + std::to_string(i), "A <a@example.org>", "2026", {}, 0, false,
        std::nullopt};
  }
  return shas;
}

TEST(GitBisectLog, GitBisectReplayAcceptsItAndNamesTheSameCommit) {
  if (!find_program("git", "/usr/bin:/bin")) GTEST_SKIP() << "git is not installed";
  TempDir repo;
  FakeFacts facts;
  const std::vector<std::string> shas = ten_commits(repo, facts);
  // Every position of the culprit: the search marks bad commits in whatever order it measured
  // them, and git, which keeps a single bad commit, must still end on the culprit.
  for (std::size_t culprit = 1; culprit < shas.size(); ++culprit) {
    MemoryJournal journal(commits_start(shas));
    const std::string log = git_bisect_log(judged(journal, culprit, {}), facts);
    const std::string subject = "change " + std::to_string(culprit);
    EXPECT_NE(log.find("# first bad commit: [" + shas[culprit] + "] " + subject + "\n"),
              std::string::npos)
        << log;
    repo.write(".git/replay.log", log);
    const std::string replayed =
        git(repo.path(), {"bisect", "replay", repo.path() + "/.git/replay.log"});
    EXPECT_NE(replayed.find(shas[culprit] + " is the first bad commit"), std::string::npos)
        << culprit << "\n"
        << log << replayed;
  }
}

TEST(GitBisectLog, WithASkipGitLeavesTheSameCommitsOpen) {
  if (!find_program("git", "/usr/bin:/bin")) GTEST_SKIP() << "git is not installed";
  TempDir repo;
  FakeFacts facts;
  const std::vector<std::string> shas = ten_commits(repo, facts);
  MemoryJournal journal(commits_start(shas));
  const Session session = judged(journal, 6, {5});
  const std::string log = git_bisect_log(session, facts);
  EXPECT_EQ(log.rfind("git bisect start --first-parent\n# bad: [" + shas[9] + "] change 9\n", 0),
            0U)
      << log;
  EXPECT_NE(log.find("git bisect skip " + shas[5]), std::string::npos) << log;
  EXPECT_EQ(log.find("# first bad commit"), std::string::npos) << log;
  repo.write(".git/replay.log", log);
  // Skipped c5 leaves c5 or c6 open, and git, replaying the log, says the same.
  const std::string replayed =
      git(repo.path(), {"bisect", "replay", repo.path() + "/.git/replay.log"});
  EXPECT_NE(replayed.find("The first bad commit could be any of:\n" + shas[5] + "\n" + shas[6]),
            std::string::npos)
      << replayed;
}

TEST(KernelAnswer, TheFirstBadCommitWithItsFactsAndWhatItCouldAlsoBe) {
  std::vector<std::string> shas;
  FakeFacts facts;
  for (int i = 0; i < 8; ++i) {
    shas.push_back(static_cast<char>('0' + i) + std::string(39, 'c'));
    facts.commits[shas.back()] = {shas.back(),
                                  "subject " + std::to_string(i),
                                  "Dev <d@x>",
                                  "2026-01-0" + std::to_string(i + 1),
                                  {"drivers/block/x.c"},
                                  3,
                                  i == 5,
                                  std::nullopt};
  }
  const std::string side_tip(40, 'e');
  facts.commits[shas[5]].side = CommitInfo::Side{std::string(40, 'd'), side_tip, 4};
  MemoryJournal journal(commits_start(shas));
  const Json answer = kernel_answer(judged(journal, 5, {4}), facts);
  EXPECT_EQ(answer["first_bad_commit"]["subject"], "subject 5");
  EXPECT_EQ(answer["first_bad_commit"]["files"][0], "drivers/block/x.c");
  EXPECT_EQ(answer["first_bad_commit"]["more_files"], 3);
  // A merge says how to bisect inside it.
  EXPECT_EQ(answer["first_bad_commit"]["inside"]["bad"], side_tip) << answer.dump(2);
  EXPECT_EQ(answer["first_bad_commit"]["inside"]["commits"], 4);
  EXPECT_NE(answer["first_bad_commit"]["inside"]["start"].get<std::string>().find(
                "--good " + std::string(40, 'd') + " --bad " + side_tip),
            std::string::npos);
  ASSERT_EQ(answer["could_also_be"].size(), 1U);
  EXPECT_EQ(answer["could_also_be"][0]["sha"], shas[4]);
  EXPECT_EQ(answer["builds"]["built"], 0);
}

TEST(KernelAnswer, AConfigBisectNamesTheSymbolWithItsHelp) {
  BisectStart start =
      commits_start({std::string(40, 'a'), std::string(40, 'a'), std::string(40, 'a')});
  start.kernel_source->kind = KernelSource::Kind::kConfigs;
  start.kernel_source->commit = std::string(40, 'a');
  for (std::size_t i = 0; i < 3; ++i) {
    start.candidates[i].name = "cfg-" + std::to_string(i);
    start.candidates[i].config = "cfg-" + std::to_string(i) + ".config";
  }
  FakeFacts facts;
  facts.configs["cfg-0.config"] = "CONFIG_A=y\n# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n";
  facts.configs["cfg-1.config"] = "CONFIG_A=n\n# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n";
  facts.configs["cfg-2.config"] = "CONFIG_A=n\nCONFIG_INTEL_IOMMU_DEFAULT_ON=y\n";
  MemoryJournal journal(start);
  const Json answer = kernel_answer(judged(journal, 2, {}), facts);
  const Json& change = answer["config_change"];
  EXPECT_EQ(change["last_good"], "cfg-1");
  EXPECT_EQ(change["first_bad"], "cfg-2");
  ASSERT_EQ(change["symbols"].size(), 1U) << change.dump();
  EXPECT_EQ(change["symbols"][0]["symbol"], "INTEL_IOMMU_DEFAULT_ON");
  EXPECT_EQ(change["symbols"][0]["to"], "y");
  EXPECT_EQ(change["symbols"][0]["help"]["file"], "drivers/iommu/intel/Kconfig");
  EXPECT_FALSE(answer.contains("git_bisect_log"));
}

}  // namespace
}  // namespace kdrift
