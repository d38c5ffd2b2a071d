#include "bisect/step.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace kdrift {
namespace {

TEST(BisectToken, RoundTripsAndIgnoresMalformedWords) {
  const std::string token = format_bisect_token("1700000000-42", 7);
  EXPECT_EQ(token, "kdrift.bisect=1700000000-42.7");
  const auto found = find_bisect_token("root=/dev/vda1 " + token + " quiet");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, "1700000000-42");
  EXPECT_EQ(found->attempt, 7);
  EXPECT_FALSE(find_bisect_token("kdrift.bisect=abc kdrift.bisect=x.y kdrift.bisect=.3"));
  EXPECT_EQ(find_bisect_token("kdrift.bisect=a.1 kdrift.bisect=b.2")->id, "b");
  EXPECT_EQ(
      strip_boot_words("BOOT_IMAGE=/vmlinuz-6.1 root=/dev/vda1 initrd=/x kdrift.bisect=a.1 ro"),
      "root=/dev/vda1 ro");
}

// A machine that boots candidates by kexec, and a `step` run against it that can be killed
// after any of its durable operations. Candidates 0..n-1 are releases r0..rn-1; the firmware's
// default boot is candidate 0's kernel without a token. Candidates at or after `culprit` are bad;
// the ones in `panics` never come back.
struct Machine {
  std::size_t culprit = 0;
  std::set<std::size_t> panics;
  BootIdentity boot;
  int boots = 0;
  std::optional<std::pair<std::size_t, std::string>> loaded;  // candidate, command line

  void power_on() {
    boot = {"boot-" + std::to_string(++boots), "r0", "root=/dev/vda1"};
    loaded.reset();
  }
  void kexec() {
    const auto [candidate, cmdline] = *loaded;
    loaded.reset();
    if (panics.count(candidate) != 0) {
      power_on();  // the panic reboots into the firmware's default
      return;
    }
    boot = {"boot-" + std::to_string(++boots), "r" + std::to_string(candidate), cmdline};
  }
};

BisectStart start_for(std::size_t count, bool declared) {
  BisectStart start;
  start.id = "b7";
  for (std::size_t i = 0; i < count; ++i) {
    start.candidates.push_back({"k" + std::to_string(i), "/k/vmlinuz-" + std::to_string(i), "",
                                "root=/dev/vda1", "r" + std::to_string(i), "", ""});
  }
  start.good = 0;
  start.bad = count - 1;
  start.metric = declared ? BisectMetric{FindingMetric{"x"}}
                          : BisectMetric{ProbeMetric{"p", "io_uring", 16, "iops"}};
  start.mode = "kexec";
  start.config.declared = declared;
  start.config.verify_endpoints = declared;
  return start;
}

// Runs one `step`; stops early ("killed") once `budget` durable operations were done.
// Returns false when the bisect has finished.
bool step_once(std::vector<Json>& journal, Machine& machine, int& budget,
               std::map<std::size_t, int>& measurements) {
  auto spend = [&budget] { return --budget >= 0; };
  for (;;) {
    const auto session = replay(journal, "journal");
    EXPECT_TRUE(session) << session.error().describe();
    const StepPlan step = plan_step(*session, machine.boot);
    const std::string name = session->start.candidates[step.candidate].name;
    switch (step.kind) {
      case StepPlan::Kind::kFinished:
        return false;
      case StepPlan::Kind::kWrongBoot:
        ADD_FAILURE() << "kexec mode never asks for a manual boot: " << step.why;
        return false;
      case StepPlan::Kind::kRecordCrash:
        if (!spend()) return true;
        journal.push_back(crash_event(name));
        continue;
      case StepPlan::Kind::kAddCandidate:
        if (!spend()) return true;
        journal.push_back(candidate_event(step.to_add));
        continue;
      case StepPlan::Kind::kMeasureHere: {
        if (!spend()) return true;  // killed while measuring: nothing recorded
        const bool bad = step.candidate >= machine.culprit;
        Json event;
        if (session->start.config.declared) {
          event = verdict_event(name, bad ? "bad" : "good", "step");
        } else {
          event =
              samples_event(name, std::vector<double>(static_cast<std::size_t>(step.action.samples),
                                                      bad ? 80.0 : 100.0));
          for (std::size_t i = 0; i < event["values"].size(); ++i)
            event["values"][i] = event["values"][i].get<double>() + static_cast<double>(i % 3);
        }
        event["boot_id"] = machine.boot.boot_id;
        journal.push_back(event);
        ++measurements[step.candidate];
        continue;
      }
      case StepPlan::Kind::kBoot:
        if (!spend()) return true;
        journal.push_back(attempt_event(name, step.attempt, machine.boot.boot_id));
        [[fallthrough]];
      case StepPlan::Kind::kBootAgain:
        if (!spend()) return true;  // killed after the attempt was recorded, before the load
        machine.loaded = {step.candidate,
                          "root=/dev/vda1 " + format_bisect_token(session->start.id, step.attempt)};
        if (!spend()) return true;  // killed between the load and the exec
        machine.kexec();
        return true;  // the next boot runs step again
    }
  }
}

struct Outcome {
  Json report_first_bad;
  std::map<std::size_t, int> measurements;
  std::string state;
  int operations = 0;  // durable operations step did, kills aside
};

// kill_at: the durable operation (counted over the whole bisect) at which step is killed; the
// machine stays up and step runs again in the same boot, as systemd or the user would rerun it.
Outcome run_bisect(std::size_t count, bool declared, Machine machine, int kill_at) {
  std::vector<Json> journal = {start_event(start_for(count, declared))};
  machine.power_on();
  std::map<std::size_t, int> measurements;
  constexpr int kNever = 1 << 30;
  int budget = kill_at < 0 ? kNever : kill_at;
  int operations = 0;
  for (int round = 0; round < 200; ++round) {
    const int before = budget;
    const bool more = step_once(journal, machine, budget, measurements);
    if (budget < 0) {
      operations += before;
      budget = kNever;
    } else {
      operations += before - budget;
    }
    if (!more) break;
  }
  const auto session = replay(journal, "journal");
  const auto first_bad = session->search.first_bad();
  const Action last = session->search.next();
  return {first_bad ? Json(session->start.candidates[*first_bad].name) : Json(nullptr),
          measurements, last.kind == Action::Kind::kDone ? "done" : "other", operations};
}

TEST(PlanStep, FunctionalBisectFindsTheCulpritAcrossKexecs) {
  Machine machine;
  machine.culprit = 5;
  const Outcome outcome = run_bisect(8, true, machine, -1);
  EXPECT_EQ(outcome.state, "done");
  EXPECT_EQ(outcome.report_first_bad, "k5");
  for (const auto& [candidate, count] : outcome.measurements)
    EXPECT_EQ(count, 1) << "k" << candidate;
}

TEST(PlanStep, PanickingCandidateIsSkippedAfterItsAttempts) {
  Machine machine;
  machine.culprit = 5;
  machine.panics = {3};
  const Outcome outcome = run_bisect(8, true, machine, -1);
  EXPECT_EQ(outcome.state, "done");
  EXPECT_EQ(outcome.report_first_bad, "k5");
  EXPECT_EQ(outcome.measurements.count(3), 0u);
}

TEST(PlanStep, KilledAtAnyPointLosesNothingAndRepeatsNoMeasurement) {
  for (const bool declared : {true, false}) {
    Machine machine;
    machine.culprit = 6;
    machine.panics = {2};
    const Outcome clean = run_bisect(10, declared, machine, -1);
    ASSERT_EQ(clean.state, "done");
    for (int kill_at = 0; kill_at < clean.operations; ++kill_at) {
      SCOPED_TRACE("declared " + std::to_string(declared) + ", killed in step " +
                   std::to_string(kill_at));
      const Outcome killed = run_bisect(10, declared, machine, kill_at);
      EXPECT_EQ(killed.state, "done");
      EXPECT_EQ(killed.report_first_bad, clean.report_first_bad);
      EXPECT_EQ(killed.measurements, clean.measurements);
    }
  }
}

TEST(PlanStep, AnAttemptWhoseKexecNeverRanIsRunAgainNotCountedAsACrash) {
  std::vector<Json> journal = {start_event(start_for(4, true))};
  journal.push_back(attempt_event("k3", 1, "boot-1"));
  const auto session = replay(journal, "journal");
  ASSERT_TRUE(session);
  const StepPlan same_boot = plan_step(*session, {"boot-1", "r0", "root=/dev/vda1"});
  EXPECT_EQ(same_boot.kind, StepPlan::Kind::kBootAgain);
  EXPECT_EQ(same_boot.attempt, 1);
  const StepPlan default_kernel = plan_step(*session, {"boot-2", "r0", "root=/dev/vda1"});
  EXPECT_EQ(default_kernel.kind, StepPlan::Kind::kRecordCrash);
  EXPECT_NE(default_kernel.why.find("without a bisect token"), std::string::npos);
  const StepPlan wrong_kernel =
      plan_step(*session, {"boot-2", "r2", "root=/dev/vda1 kdrift.bisect=b7.1"});
  EXPECT_EQ(wrong_kernel.kind, StepPlan::Kind::kRecordCrash);
  const StepPlan arrived =
      plan_step(*session, {"boot-2", "r3", "root=/dev/vda1 kdrift.bisect=b7.1"});
  EXPECT_EQ(arrived.kind, StepPlan::Kind::kMeasureHere);
  EXPECT_EQ(arrived.candidate, 3u);
}

TEST(PlanStep, FunctionalEndpointsThatAgreeAreRefused) {
  std::vector<Json> journal = {start_event(start_for(4, true)), verdict_event("k3", "bad", "step"),
                               verdict_event("k0", "bad", "step")};
  const auto session = replay(journal, "journal");
  ASSERT_TRUE(session);
  const Action action = session->search.next();
  EXPECT_EQ(action.kind, Action::Kind::kRefused);
  EXPECT_NE(action.why.find("the good endpoint tested bad"), std::string::npos) << action.why;
}

TEST(PlanStep, ManualModeMeasuresOnlyOnTheCandidatesKernel) {
  BisectStart start = start_for(4, true);
  start.mode = "manual";
  const auto session = replay({start_event(start)}, "journal");
  ASSERT_TRUE(session);
  EXPECT_EQ(plan_step(*session, {"boot-1", "r0", ""}).kind, StepPlan::Kind::kWrongBoot);
  EXPECT_EQ(plan_step(*session, {"boot-1", "r3", ""}).kind, StepPlan::Kind::kMeasureHere);
}

}  // namespace
}  // namespace kdrift
