#include "bisect/kernel_steps.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <sstream>

#include "memory_journal.h"

namespace kdrift {
namespace {

using bisect_test::MemoryJournal;

std::string commit_of(std::size_t i) {
  return std::string(39, 'a') + static_cast<char>('0' + i % 10);
}

// Candidates c0..cN-1 of a commit bisect, each a commit of its own.
BisectStart kernel_start(std::size_t count, BisectMetric metric) {
  BisectStart start;
  start.id = "b9";
  for (std::size_t i = 0; i < count; ++i) {
    Candidate candidate;
    candidate.name = "c" + std::to_string(i);
    candidate.commit = commit_of(i);
    start.candidates.push_back(candidate);
  }
  start.bad = count - 1;
  start.metric = std::move(metric);
  start.mode = "command";
  start.target = "/dev/vdb";
  KernelSource source;
  source.tree = "/src/linux";
  source.boot_command = "/lab/boot";
  start.kernel_source = source;
  const bool declared = std::holds_alternative<DeclaredMetric>(start.metric);
  start.config.declared = declared;
  start.config.verify_endpoints = declared;
  start.config.whole_boots = true;
  start.config.reference_samples = 10;
  return start;
}

Json probe_snapshot(double iops, const std::string& release) {
  Json job = {{"name", "randread"},
              {"workload", "randread"},
              {"bs", 4096},
              {"ramp_s", 0},
              {"runtime_s", 5},
              {"batch", {{"submit", 1}, {"complete_min", 1}, {"complete_max", 16}}},
              {"engine", "io_uring"},
              {"rw", "randread"},
              {"iodepth", 16},
              {"status", "ok"},
              {"read", {{"ios", iops}, {"iops", iops}}}};
  return {{"kernel", {{"release", release}}}, {"probe", {{"jobs", Json::array({job})}}}};
}

// A lab whose candidates from `culprit` on run at 70 % of the others' IOPS, with 2 % noise.
class FakeLab : public KernelLab {
 public:
  explicit FakeLab(std::size_t culprit) : culprit_(culprit) {}

  Result<CandidateBuild> build(const Session& session, std::size_t candidate) override {
    const std::string& name = session.start.candidates[candidate].name;
    builds.push_back(name);
    if (broken.count(name) != 0) return CandidateBuild{"failed", "", 12, true, "error: x.c"};
    if (hangs.count(name) != 0) return CandidateBuild{"timed-out", "", 3600, true, "timed out"};
    return CandidateBuild{"built", "6.1.0-" + name, 30, true, ""};
  }

  Result<BootReport> boot(const Session& session, std::size_t candidate, int runs) override {
    const std::string& name = session.start.candidates[candidate].name;
    boots.push_back(name);
    BootReport report;
    if (silent.count(name) != 0) {
      report.kind = BootReport::Kind::kNotBooted;
      report.why = "no result";
      return report;
    }
    report.kind = BootReport::Kind::kMeasured;
    const std::string release =
        wrong_kernel.count(name) != 0 ? "6.1.0-other" : session.builds[candidate]->release;
    std::normal_distribution<double> noise(1.0, 0.02);
    for (int run = 0; run < runs; ++run) {
      const double level = candidate >= culprit_ ? 70000 : 100000;
      report.snapshots.push_back(probe_snapshot(level * noise(random_), release));
      report.names.push_back("run-" + std::to_string(run) + ".json");
    }
    return report;
  }

  std::set<std::string> broken, hangs, silent, wrong_kernel;
  std::vector<std::string> builds, boots;

 private:
  std::size_t culprit_;
  std::mt19937 random_{7};
};

const ProbeMetric kMetric{"lab", "io_uring", 16, "iops"};

TEST(KernelSteps, AMeasuredCommitBisectNamesThePlantedCommitAndSkipsOneThatDoesNotBuild) {
  // The lab's tree: commit 0 and the 32 after it, the planted one at 11, a broken one at 16.
  MemoryJournal journal(kernel_start(33, kMetric));
  FakeLab lab(11);
  lab.broken = {"c16"};
  std::ostringstream out;
  auto session = run_kernel_steps(journal.session(), lab, journal, out);
  ASSERT_TRUE(session) << session.error().describe();
  ASSERT_TRUE(session->search.first_bad()) << out.str();
  EXPECT_EQ(session->start.candidates[*session->search.first_bad()].name, "c11");
  EXPECT_TRUE(session->search.skipped(16));
  // Built once each, never the broken one booted; within ceil(log2(30)) + 3 builds.
  EXPECT_EQ(std::set<std::string>(lab.builds.begin(), lab.builds.end()).size(), lab.builds.size());
  EXPECT_EQ(std::count(lab.boots.begin(), lab.boots.end(), "c16"), 0);
  EXPECT_LE(lab.builds.size(), 8U) << out.str();
  EXPECT_NE(out.str().find("c16: failed in 12 s\n  skipped: error: x.c"), std::string::npos);
}

TEST(KernelSteps, EveryMeasurementIsABootOfItsOwn) {
  MemoryJournal journal(kernel_start(8, kMetric));
  FakeLab lab(5);
  std::ostringstream out;
  auto session = run_kernel_steps(journal.session(), lab, journal, out);
  ASSERT_TRUE(session) << session.error().describe();
  std::size_t samples_events = 0;
  for (const Json& event : journal.events)
    samples_events += event.value("event", "") == "samples";
  std::size_t boots = 0;
  for (std::size_t i = 0; i < session->search.size(); ++i)
    boots += session->search.state(i).boot_sizes.size() + (session->search.state(i).retested);
  EXPECT_EQ(boots, samples_events);
}

TEST(KernelSteps, ACandidateThatHangsOrNeverReportsIsSkippedNotJudged) {
  MemoryJournal journal(kernel_start(16, kMetric));
  FakeLab lab(9);
  lab.hangs = {"c7"};
  lab.silent = {"c8"};
  std::ostringstream out;
  auto session = run_kernel_steps(journal.session(), lab, journal, out);
  ASSERT_TRUE(session) << session.error().describe();
  ASSERT_TRUE(session->search.first_bad()) << out.str();
  const std::string first_bad = session->start.candidates[*session->search.first_bad()].name;
  // c7 and c8 can only be skipped: the answer is c9, or c9 with them as could-also-be.
  EXPECT_EQ(first_bad, "c9") << out.str();
  for (const std::size_t skipped : {7U, 8U}) {
    if (session->search.state(skipped).rounds > 0 || session->builds[skipped]) {
      EXPECT_TRUE(session->search.skipped(skipped)) << skipped;
    }
  }
}

TEST(KernelSteps, ABootThatCameUpAsAnotherKernelIsACrashNotASample) {
  MemoryJournal journal(kernel_start(4, kMetric));
  FakeLab lab(2);
  lab.wrong_kernel = {"c3"};
  const Session start = journal.session();
  const std::size_t bad = start.start.bad;
  auto built = journal.record(build_event("c3", {"built", "6.1.0-c3", 1, false, ""}));
  ASSERT_TRUE(built);
  auto report = lab.boot(*built, bad, 3);
  ASSERT_TRUE(report);
  auto event = boot_event(*built, bad, *report);
  ASSERT_TRUE(event) << event.error().describe();
  EXPECT_EQ((*event)["event"], "crash");
  EXPECT_NE(event->value("why", "").find("6.1.0-other"), std::string::npos);
}

TEST(KernelSteps, AFailingBootCommandStopsWithTheBisectKept) {
  MemoryJournal journal(kernel_start(4, kMetric));
  auto built = journal.record(build_event("c3", {"built", "r", 1, false, ""}));
  ASSERT_TRUE(built);
  BootReport failed;
  failed.kind = BootReport::Kind::kFailed;
  failed.why = "the boot command failed (exit 2)";
  auto event = boot_event(*built, 3, failed);
  ASSERT_FALSE(event);
  EXPECT_NE(event.error().describe().find("kept"), std::string::npos);
  BootReport empty_probe;
  empty_probe.kind = BootReport::Kind::kMeasured;
  empty_probe.snapshots = {Json{{"probe", {{"jobs", Json::array()}}}}};
  empty_probe.names = {"run-1.json"};
  auto no_figure = boot_event(*built, 3, empty_probe);
  ASSERT_FALSE(no_figure);
  EXPECT_NE(no_figure.error().describe().find("run-1.json gave no sample"), std::string::npos);
}

TEST(KernelSteps, ADeclaredBisectTakesTheBootCommandsExitStatusAsGitBisectRunDoes) {
  MemoryJournal journal(kernel_start(4, DeclaredMetric{}));
  auto built = journal.record(build_event("c1", {"built", "r", 1, false, ""}));
  ASSERT_TRUE(built);
  BootReport report;
  report.kind = BootReport::Kind::kMeasured;
  for (const auto& [status, verdict] :
       std::map<int, std::string>{{0, "good"}, {1, "bad"}, {125, "skip"}}) {
    report.exit_status = status;
    auto event = boot_event(*built, 1, report);
    ASSERT_TRUE(event);
    EXPECT_EQ((*event)["verdict"], verdict) << status;
  }
  report.exit_status = 130;
  EXPECT_FALSE(boot_event(*built, 1, report));
}

TEST(KernelSteps, AKillMidBuildResumesWithoutRebuildingWhatWasRecorded) {
  MemoryJournal journal(kernel_start(32, kMetric));
  // The first run is killed at its fourth build: the lab refuses to go on.
  class Killed : public FakeLab {
   public:
    using FakeLab::FakeLab;
    Result<CandidateBuild> build(const Session& session, std::size_t candidate) override {
      if (builds.size() == 3) return content_error("killed");
      return FakeLab::build(session, candidate);
    }
  } first(11);
  std::ostringstream out;
  EXPECT_FALSE(run_kernel_steps(journal.session(), first, journal, out));
  FakeLab second(11);
  auto session = run_kernel_steps(journal.session(), second, journal, out);
  ASSERT_TRUE(session) << session.error().describe();
  for (const std::string& name : first.builds) {
    EXPECT_EQ(std::count(second.builds.begin(), second.builds.end(), name), 0) << name;
  }
  ASSERT_TRUE(session->search.first_bad());
  EXPECT_EQ(session->start.candidates[*session->search.first_bad()].name, "c11");
}

TEST(KernelSource, AJournalNamingAnOptionAsItsCommitIsRefused) {
  BisectStart start = kernel_start(3, kMetric);
  start.candidates[1].commit = "--upload-pack=touch /tmp/x";
  EXPECT_FALSE(replay({start_event(start)}, "j"));
  start = kernel_start(3, kMetric);
  start.candidates[1].name = "../../etc";
  EXPECT_FALSE(replay({start_event(start)}, "j"));
  start = kernel_start(3, kMetric);
  start.kernel_source->boot_command = "relative/boot";
  EXPECT_FALSE(replay({start_event(start)}, "j"));
  EXPECT_TRUE(replay({start_event(kernel_start(3, kMetric))}, "j"));
}

}  // namespace
}  // namespace kdrift
