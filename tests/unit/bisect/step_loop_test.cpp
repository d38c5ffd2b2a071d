#include "bisect/step_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "bisect/bisect_dir.h"
#include "memory_journal.h"

namespace kdrift {
namespace {

using bisect_test::MemoryJournal;
using bisect_test::start_for;

// A machine that boots candidates by kexec: candidates k0..kn-1 run releases r0..rn-1, the
// firmware's default is k0's kernel without a token, candidates at or after `culprit` are bad,
// the ones in `panics` come back as the firmware's default. The probe gives 100 (good) or 80
// (bad) with a little spread; the finding is present on bad candidates.
class FakeMachine : public StepHost {
 public:
  std::size_t culprit = 0;
  std::set<std::size_t> panics;
  bool can_kexec = true;
  std::string refused_kernel;  // an image whose files the machine refuses
  bool probe_fails = false;
  BootIdentity boot{"boot-1", "r0", "root=/dev/vda1"};
  int boots = 1;
  std::map<std::size_t, int> measured;    // candidate -> measurements
  std::set<std::size_t> crash_measuring;  // candidates whose first measurement resets the host
  std::vector<BootImage> kexecs;          // every image loaded, dry runs too

  Result<BootIdentity> boot_identity() override { return boot; }
  Result<std::vector<double>> probe(const ProbeMetric& metric, const std::string& target,
                                    int runs) override {
    EXPECT_EQ(metric, (ProbeMetric{"p", "io_uring", 16, "iops"}));
    EXPECT_EQ(target, "/dev/test");
    if (probe_fails) return content_error("probe: no such profile");
    const std::size_t candidate = running();
    ++measured[candidate];
    std::vector<double> values;
    for (int i = 0; i < runs; ++i)
      values.push_back((candidate >= culprit ? 80.0 : 100.0) + i % 3);
    return values;
  }
  Result<Json> judge_finding(const Session& session, std::size_t candidate) override {
    EXPECT_EQ(candidate, running());
    if (crash_measuring.erase(candidate) != 0) {
      // The host resets in the middle of the measurement and comes back to its default kernel.
      boot = {"boot-" + std::to_string(++boots), "r0", "root=/dev/vda1"};
      return content_error("the measurement never finished");
    }
    ++measured[candidate];
    const bool bad = candidate >= culprit;
    Json event =
        verdict_event(session.start.candidates[candidate].name, bad ? "bad" : "good", "step");
    event["details"] = {{"why", bad ? "x present" : "x absent"}};
    return event;
  }
  Status prepare_boot(const BootImage& image) override {
    if (!can_kexec) return content_error("bisect step: this machine cannot kexec");
    if (image.kernel == refused_kernel)
      return content_error("kernel " + image.kernel + ": refused");
    return ok_status();
  }
  Status start_boot(const BootImage& image, bool dry_run) override {
    kexecs.push_back(image);
    if (dry_run) return ok_status();
    const std::size_t candidate = std::stoul(image.kernel.substr(image.kernel.rfind('-') + 1));
    ++boots;
    if (panics.count(candidate) != 0) {
      boot = {"boot-" + std::to_string(boots), "r0", "root=/dev/vda1"};
    } else {
      boot = {"boot-" + std::to_string(boots), "r" + std::to_string(candidate), image.command_line};
    }
    return ok_status();
  }

  std::set<std::size_t> broken;    // built candidates whose build fails
  std::vector<std::size_t> built;  // every build, in order
  Result<CandidateBuild> build_kernel(const Session&, std::size_t candidate) override {
    built.push_back(candidate);
    if (broken.count(candidate) != 0) return CandidateBuild{"failed", "", 5, false, "error"};
    return CandidateBuild{"built", "r" + std::to_string(candidate), 60, true, ""};
  }
  std::string built_kernel(const Candidate& candidate) const override {
    return "/state/candidates/built-" + candidate.name.substr(1);
  }

 private:
  std::size_t running() const { return std::stoul(boot.release.substr(1)); }
};

// Runs step on every boot, as kdrift-bisect.service does, until it finishes.
std::optional<Session> run_until_finished(FakeMachine& machine, MemoryJournal& journal,
                                          std::string& said) {
  for (int boot = 0; boot < 100; ++boot) {
    std::ostringstream out;
    auto outcome = run_step(journal.session(), machine, journal, false, out);
    said += out.str();
    if (!outcome) {
      ADD_FAILURE() << outcome.error().describe();
      break;
    }
    if (outcome->finished) return outcome->session;
  }
  ADD_FAILURE() << "step never finished";
  return std::nullopt;
}

std::string first_bad(const Session& session) {
  const auto index = session.search.first_bad();
  return index ? session.start.candidates[*index].name : "none";
}

TEST(RunStep, FunctionalBisectKexecsToTheCulpritAndRecordsThePanics) {
  FakeMachine machine;
  machine.culprit = 5;
  machine.panics = {3};
  MemoryJournal journal(start_for(8, FindingMetric{"x"}, "kexec"));
  std::string said;
  const auto finished = run_until_finished(machine, journal, said);
  ASSERT_TRUE(finished);
  EXPECT_EQ(first_bad(*finished), "k5");
  EXPECT_EQ(machine.measured.count(3), 0u);
  for (const auto& [candidate, count] : machine.measured)
    EXPECT_EQ(count, 1) << "k" << candidate;
  EXPECT_NE(said.find("k3 did not come back from attempt"), std::string::npos) << said;
  EXPECT_NE(said.find("k7: bad (x present)"), std::string::npos) << said;
  // Every measurement carries the boot that made it, and the attempt that booted it.
  for (const Json& event : journal.events) {
    if (event.value("event", "") != "verdict") continue;
    EXPECT_TRUE(event.contains("boot_id")) << event.dump();
    EXPECT_GT(event.value("attempt", 0), 0) << event.dump();
  }
}

TEST(RunStep, ARebootBisectTellsACandidateThatNeverBootedFromOneThatCrashedWhileMeasured) {
  FakeMachine machine;
  machine.culprit = 5;
  machine.panics = {3};
  machine.crash_measuring = {4};
  MemoryJournal journal(start_for(8, FindingMetric{"x"}, "reboot"));
  std::string said;
  std::optional<Session> finished;
  for (int boot = 0; boot < 100 && !finished; ++boot) {
    std::ostringstream out;
    auto outcome = run_step(journal.session(), machine, journal, false, out);
    said += out.str();
    if (outcome && outcome->finished) finished = outcome->session;
  }
  ASSERT_TRUE(finished) << said;
  EXPECT_EQ(first_bad(*finished), "k5");
  const Json report = bisect_report(*finished);
  std::map<std::string, std::string> verdicts;
  for (const Json& step : report.at("steps"))
    verdicts[step.at("candidate")] = step.at("verdict");
  EXPECT_EQ(verdicts["k3"], "skip (did not boot)") << report.dump(2);
  // The candidate that came up and reached step crashed: not "did not boot".
  std::vector<std::string> crash_reasons;
  for (const Json& event : journal.events) {
    if (event.value("event", "") == "crash") crash_reasons.push_back(event.value("reason", ""));
  }
  EXPECT_NE(std::find(crash_reasons.begin(), crash_reasons.end(), "crashed"), crash_reasons.end())
      << said;
  EXPECT_NE(std::find(crash_reasons.begin(), crash_reasons.end(), "did not boot"),
            crash_reasons.end());
}

TEST(RunStep, PerformanceBisectRecordsSamplesUntilTheAnswer) {
  FakeMachine machine;
  machine.culprit = 4;
  MemoryJournal journal(start_for(8, ProbeMetric{"p", "io_uring", 16, "iops"}, "kexec"));
  std::string said;
  const auto finished = run_until_finished(machine, journal, said);
  ASSERT_TRUE(finished);
  EXPECT_EQ(first_bad(*finished), "k4");
  EXPECT_NE(said.find("k7: [80.0,81.0,82.0"), std::string::npos) << said;
}

TEST(RunStep, ACommitBisectBuildsEachCandidateBeforeItsKexecAndSkipsOneThatDoesNotBuild) {
  FakeMachine machine;
  machine.culprit = 5;
  machine.broken = {4};
  BisectStart start = start_for(8, FindingMetric{"x"}, "kexec");
  KernelSource source;
  source.tree = "/src/linux";
  start.kernel_source = source;
  for (std::size_t i = 0; i < start.candidates.size(); ++i) {
    start.candidates[i].kernel.clear();
    start.candidates[i].commit = std::string(40, "0123456789abcdef"[i]);
  }
  MemoryJournal journal(start);
  std::string said;
  const auto finished = run_until_finished(machine, journal, said);
  ASSERT_TRUE(finished);
  EXPECT_EQ(first_bad(*finished), "k5");
  // Built once each, before its first boot, and the one that did not build never booted.
  EXPECT_EQ(std::set<std::size_t>(machine.built.begin(), machine.built.end()).size(),
            machine.built.size());
  for (const BootImage& image : machine.kexecs) {
    EXPECT_EQ(image.kernel.rfind("/state/candidates/built-", 0), 0U) << image.kernel;
    EXPECT_NE(image.kernel, "/state/candidates/built-4");
  }
  EXPECT_NE(said.find("k4: failed in 5 s"), std::string::npos) << said;
}

TEST(RunStep, AttemptIsRecordedBeforeTheKexecWithTheTokenOnTheCommandLine) {
  FakeMachine machine;
  machine.culprit = 2;
  BisectStart start = start_for(4, FindingMetric{"x"}, "kexec");
  start.candidates[3].append = "console=ttyS0";
  MemoryJournal journal(start);
  std::ostringstream out;
  const auto outcome = run_step(journal.session(), machine, journal, false, out);
  ASSERT_TRUE(outcome) << outcome.error().describe();
  EXPECT_FALSE(outcome->finished);
  ASSERT_EQ(journal.events.size(), 2u);
  EXPECT_EQ(journal.events[1], attempt_event("k3", 1, "boot-1"));
  ASSERT_EQ(machine.kexecs.size(), 1u);
  EXPECT_EQ(machine.kexecs[0].kernel, "/k/vmlinuz-3");
  EXPECT_EQ(machine.kexecs[0].command_line, "console=ttyS0 kdrift.bisect=b7.1");
  EXPECT_EQ(out.str(), "booting k3, attempt 1 (verify the bad endpoint)\n");
}

TEST(RunStep, DryRunRecordsNothing) {
  FakeMachine machine;
  machine.culprit = 2;
  MemoryJournal journal(start_for(4, FindingMetric{"x"}, "kexec"));
  std::ostringstream out;
  const auto outcome = run_step(journal.session(), machine, journal, true, out);
  ASSERT_TRUE(outcome) << outcome.error().describe();
  EXPECT_FALSE(outcome->finished);
  EXPECT_EQ(journal.events.size(), 1u);
  ASSERT_EQ(machine.kexecs.size(), 1u);
  // Without an append= the running command line is kept, the token added.
  EXPECT_EQ(machine.kexecs[0].command_line, "root=/dev/vda1 kdrift.bisect=b7.1");
  EXPECT_EQ(machine.boot.boot_id, "boot-1");

  // The boot that came up as the candidate says it would measure, and does not.
  machine.boot = {"boot-2", "r3", "root=/dev/vda1 kdrift.bisect=b7.1"};
  ASSERT_TRUE(journal.record(attempt_event("k3", 1, "boot-1")));
  std::ostringstream measuring;
  ASSERT_TRUE(run_step(journal.session(), machine, journal, true, measuring));
  EXPECT_EQ(measuring.str(), "measuring k3 (verify the bad endpoint)\n");
  EXPECT_TRUE(machine.measured.empty());
  EXPECT_EQ(journal.events.size(), 2u);
}

TEST(RunStep, FailuresRecordNothing) {
  MemoryJournal journal(start_for(4, ProbeMetric{"p", "io_uring", 16, "iops"}, "kexec"));
  std::ostringstream out;
  FakeMachine no_kexec;
  no_kexec.can_kexec = false;
  const auto refused = run_step(journal.session(), no_kexec, journal, false, out);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().describe(), "bisect step: this machine cannot kexec");
  EXPECT_EQ(journal.events.size(), 1u);

  // An image refused at the boot that would load it records no attempt either.
  FakeMachine swapped_image;
  swapped_image.refused_kernel =
      candidate_image(journal.session(), plan_step(journal.session(), swapped_image.boot),
                      swapped_image.boot)
          .kernel;
  const auto image_refused = run_step(journal.session(), swapped_image, journal, false, out);
  ASSERT_FALSE(image_refused);
  EXPECT_NE(image_refused.error().describe().find("refused"), std::string::npos);
  EXPECT_EQ(journal.events.size(), 1u);

  FakeMachine broken_probe;
  broken_probe.probe_fails = true;
  broken_probe.boot = {"boot-2", "r3", "kdrift.bisect=b7.1"};
  ASSERT_TRUE(journal.record(attempt_event("k3", 1, "boot-1")));
  const auto failed = run_step(journal.session(), broken_probe, journal, false, out);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().describe(), "probe: no such profile");
  // The candidate did boot: that is kept (a crash now would not be "did not boot"), no sample.
  ASSERT_EQ(journal.events.size(), 3u);
  EXPECT_EQ(journal.events[2]["event"], "booted");
}

TEST(RunStep, ManualModeRefusesTheWrongBootAndADeclaredBisectHasNothingToMeasure) {
  FakeMachine machine;
  MemoryJournal journal(start_for(4, DeclaredMetric{}, "manual"));
  std::ostringstream out;
  const auto wrong = run_step(journal.session(), machine, journal, false, out);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().describe(),
            "bisect step: boot k3 (r3) first; this boot runs r0 (nothing recorded)");
  machine.boot = {"boot-2", "r3", ""};
  const auto declared = run_step(journal.session(), machine, journal, false, out);
  ASSERT_FALSE(declared);
  EXPECT_NE(declared.error().describe().find("nothing to measure"), std::string::npos);
  EXPECT_EQ(journal.events.size(), 1u);
}

TEST(RunStep, FinishedBisectSaysSoWithoutBooting) {
  FakeMachine machine;
  MemoryJournal journal(start_for(2, FindingMetric{"x"}, "manual"));
  ASSERT_TRUE(journal.record(verdict_event("k1", "bad", "user")));
  ASSERT_TRUE(journal.record(verdict_event("k0", "good", "user")));
  std::ostringstream out;
  const auto outcome = run_step(journal.session(), machine, journal, false, out);
  ASSERT_TRUE(outcome) << outcome.error().describe();
  EXPECT_TRUE(outcome->finished);
  EXPECT_EQ(first_bad(outcome->session), "k1");
  EXPECT_TRUE(machine.kexecs.empty());
  EXPECT_EQ(out.str(), "");
}

TEST(StepSnapshotName, UniquePerJournalPositionAndSafeAsAFileName) {
  BisectStart start = start_for(2, FindingMetric{"x"}, "manual");
  start.candidates[1].name = "6.1/rc 2";
  MemoryJournal journal(start);
  EXPECT_EQ(step_snapshot_name(journal.session(), 1), "0-6.1_rc_2-0.json");
  ASSERT_TRUE(journal.record(attempt_event("k0", 1, "boot-1")));
  EXPECT_EQ(step_snapshot_name(journal.session(), 0), "1-k0-0.json");
}

}  // namespace
}  // namespace kdrift
