#include "bisect/supervisor.h"

#include <gtest/gtest.h>

#include <deque>

#include "bisect/bisect_dir.h"
#include "memory_journal.h"

namespace kdrift {
namespace {

using bisect_test::MemoryJournal;
using bisect_test::start_for;
using std::chrono::seconds;
using Kind = SupervisorTurn::Kind;

// A report as kdrift bisect report --format json prints it, of steps (candidate, samples).
std::string report_text(const std::string& state, std::vector<std::pair<std::string, int>> steps,
                        int crashes = 0) {
  Json document = {{"state", state}, {"why", "test it"}, {"first_bad", nullptr}};
  document["steps"] = Json::array();
  for (const auto& [candidate, samples] : steps) {
    document["steps"].push_back(
        {{"candidate", candidate}, {"samples", samples}, {"crashes", crashes}, {"verdict", "?"}});
  }
  if (state == "done") document["first_bad"] = "k5";
  return document.dump();
}

// The host: what each poll prints (the last one again once they run out), and a clock the test
// moves; a power cycle takes cycle_takes of it.
class FakeHost : public SupervisedHost {
 public:
  Result<std::string> status() override {
    now += poll_takes;
    if (outputs.size() > 1) {
      Result<std::string> next = outputs.front();
      outputs.pop_front();
      return next;
    }
    return outputs.front();
  }
  Status power_cycle(const std::string& reason, int cycle) override {
    now += cycle_takes;
    cycles.emplace_back(reason, cycle);
    if (cycle_fails) return content_error("/usr/local/bin/pdu-cycle exited 1");
    if (comes_back_with) outputs = {*comes_back_with};
    return ok_status();
  }
  SupervisorClock clock() {
    return [this] { return now; };
  }

  std::chrono::steady_clock::time_point now{};
  seconds poll_takes{0};
  seconds cycle_takes{0};
  std::deque<Result<std::string>> outputs;
  std::vector<std::pair<std::string, int>> cycles;
  bool cycle_fails = false;
  std::optional<std::string> comes_back_with;
};

const SupervisorSettings kSettings{
    .timeout = seconds(600), .interval = seconds(30), .max_power_cycles = 3};

// Polls every interval (on the host's clock) until a turn finishes or the time is up.
std::vector<SupervisorTurn> supervise_for(FakeHost& host, Supervisor& supervisor, seconds total) {
  std::vector<SupervisorTurn> turns;
  const auto end = host.now + total;
  while (host.now < end) {
    turns.push_back(supervisor.poll());
    if (turns.back().finished()) break;
    host.now += supervisor.settings().interval;
  }
  return turns;
}

TEST(HostReport, ReadsTheReportKdriftPrints) {
  MemoryJournal journal(start_for(8, DeclaredMetric{}, "manual"));
  ASSERT_TRUE(journal.record(verdict_event("k3", "good", "user")));
  const auto report = read_host_report(bisect_report(journal.session()).dump(2));
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->state, "running");
  ASSERT_FALSE(report->steps.empty());
  EXPECT_EQ(report->steps.front().candidate, "k3");
  EXPECT_FALSE(report->first_bad);
  EXPECT_FALSE(report->why.empty());
}

TEST(HostReport, AnythingElseIsNoReport) {
  for (const std::string& text : {
           std::string("ssh: connect to host lab1 port 22: No route to host"),
           std::string("{\"state\": \"running\"}"),
           std::string("{\"steps\": []}"),
           std::string("{\"state\": 3, \"steps\": []}"),
           std::string("{\"state\": \"running\", \"steps\": [{\"candidate\": \"k1\"}]}"),
           std::string("{\"state\": \"running\", \"steps\": [{\"candidate\": \"k1\", \"samples\": "
                       "-1, \"crashes\": 0}]}"),
           std::string("[\"state\", \"steps\"]"),
           std::string(100, '[') + std::string(100, ']'),
       }) {
    EXPECT_FALSE(read_host_report(text)) << text;
  }
  std::string huge = report_text("running", {{"k1", 1}});
  huge.insert(1, "\"padding\": \"" + std::string(kMaxHostReportBytes, 'x') + "\", ");
  const auto refused = read_host_report(huge);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().describe().find("larger than 4 MiB"), std::string::npos);
}

TEST(Supervisor, ProgressKeepsTheHostFromBeingPowerCycled) {
  FakeHost host;
  // A new sample every poll for three hours: five timeouts' worth, never a power cycle.
  for (int samples = 1; samples <= 400; ++samples)
    host.outputs.push_back(report_text("running", {{"k0", samples}}));
  Supervisor supervisor(kSettings, host, host.clock());
  const auto turns = supervise_for(host, supervisor, seconds(3 * 3600));
  EXPECT_TRUE(host.cycles.empty());
  for (const SupervisorTurn& turn : turns)
    EXPECT_EQ(turn.kind, Kind::kProgress);
  ASSERT_EQ(turns[1].changed_steps.size(), 1U);
  EXPECT_EQ(turns[1].changed_steps[0].samples, 2U);
  EXPECT_FALSE(turns[1].state_changed);
}

TEST(Supervisor, AnUnchangedReportForTheTimeoutPowerCyclesAndStartsTheTimeoutAgain) {
  FakeHost host;
  host.outputs = {report_text("running", {{"k0", 5}, {"k7", 5}})};
  host.cycle_takes = seconds(45);  // a slow BMC: its time is not the host's to come back in
  Supervisor supervisor(kSettings, host, host.clock());
  EXPECT_EQ(supervisor.poll().kind, Kind::kProgress);  // the first report read
  host.now += seconds(599);
  const SupervisorTurn waiting = supervisor.poll();
  EXPECT_EQ(waiting.kind, Kind::kNoProgress);
  EXPECT_EQ(waiting.quiet, seconds(599));
  ASSERT_TRUE(waiting.report);
  host.now += seconds(1);
  const SupervisorTurn cycled = supervisor.poll();
  ASSERT_EQ(cycled.kind, Kind::kPowerCycled);
  EXPECT_EQ(cycled.cycle, 1);
  EXPECT_FALSE(cycled.cycle_error);
  ASSERT_EQ(host.cycles.size(), 1U);
  EXPECT_EQ(host.cycles[0].first, cycled.reason);
  EXPECT_EQ(host.cycles[0].second, 1);
  EXPECT_EQ(cycled.reason,
            "no progress for 600 s: the report is unchanged (state running, 2 steps)");
  // The timeout runs from the end of the power cycle.
  host.now += seconds(599);
  EXPECT_EQ(supervisor.poll().kind, Kind::kNoProgress);
  host.now += seconds(1);
  const SupervisorTurn again = supervisor.poll();
  EXPECT_EQ(again.kind, Kind::kPowerCycled);
  EXPECT_EQ(again.cycle, 2);
}

TEST(Supervisor, AFailedPollIsNoProgressAndSaysWhy) {
  FakeHost host;
  host.outputs = {content_error("the status command exited 255")};
  Supervisor supervisor(kSettings, host, host.clock());
  const SupervisorTurn first = supervisor.poll();
  EXPECT_EQ(first.kind, Kind::kNoProgress);
  ASSERT_TRUE(first.poll_error);
  EXPECT_EQ(first.poll_error->describe(), "the status command exited 255");
  host.outputs = {std::string("<html>502 Bad Gateway</html>")};
  host.now += seconds(600);
  const SupervisorTurn cycled = supervisor.poll();
  ASSERT_EQ(cycled.kind, Kind::kPowerCycled);
  EXPECT_NE(cycled.reason.find("no progress for 600 s: the last poll failed: the report: not "
                               "valid JSON"),
            std::string::npos)
      << cycled.reason;
}

TEST(Supervisor, AHostThatDoesNotComeBackIsGivenUpOnAfterTheLastCycle) {
  FakeHost host;
  host.outputs = {content_error("ssh exited 255")};
  host.cycle_fails = true;  // a failing power-cycle command counts as a cycle all the same
  Supervisor supervisor(kSettings, host, host.clock());
  const auto turns = supervise_for(host, supervisor, seconds(24 * 3600));
  ASSERT_TRUE(turns.back().finished());
  EXPECT_EQ(turns.back().kind, Kind::kGaveUp);
  EXPECT_EQ(turns.back().cycle, 3);
  EXPECT_NE(turns.back().reason.find("ssh exited 255"), std::string::npos);
  ASSERT_EQ(host.cycles.size(), 3U);
  EXPECT_EQ(host.cycles[2].second, 3);
  std::size_t failed_cycles = 0;
  for (const SupervisorTurn& turn : turns)
    failed_cycles += turn.kind == Kind::kPowerCycled && turn.cycle_error ? 1 : 0;
  EXPECT_EQ(failed_cycles, 3U);
  // Three timeouts and the fourth that found the host still down, at 30 s polls.
  EXPECT_EQ(turns.size(), 4 * 20 + 1U);
}

TEST(Supervisor, ProgressAfterAPowerCycleCountsTheCyclesAfreshAndEndsWithTheAnswer) {
  FakeHost host;
  host.outputs = {report_text("running", {{"k0", 5}, {"k7", 5}, {"k3", 0}})};
  host.comes_back_with = report_text("running", {{"k0", 5}, {"k7", 5}, {"k3", 0}}, 1);
  Supervisor supervisor(kSettings, host, host.clock());
  (void)supervisor.poll();
  host.now += seconds(600);
  ASSERT_EQ(supervisor.poll().kind, Kind::kPowerCycled);
  // The host came back on the good kernel, which recorded the crash.
  const SupervisorTurn back = supervisor.poll();
  ASSERT_EQ(back.kind, Kind::kProgress);
  ASSERT_EQ(back.changed_steps.size(), 3U);
  EXPECT_EQ(back.changed_steps[2].crashes, 1U);
  host.comes_back_with.reset();
  host.now += seconds(600);
  const SupervisorTurn next_hang = supervisor.poll();
  ASSERT_EQ(next_hang.kind, Kind::kPowerCycled);
  EXPECT_EQ(next_hang.cycle, 1);
  host.outputs = {report_text("done", {{"k0", 5}, {"k7", 5}, {"k5", 5}})};
  const SupervisorTurn done = supervisor.poll();
  EXPECT_EQ(done.kind, Kind::kDone);
  ASSERT_TRUE(done.report);
  EXPECT_EQ(done.report->first_bad, "k5");
}

TEST(Supervisor, ARefusedOrDoneBisectFinishesWhetherOrNotItMoved) {
  FakeHost host;
  host.outputs = {report_text("refused", {{"k0", 10}, {"k7", 10}})};
  Supervisor supervisor(kSettings, host, host.clock());
  const SupervisorTurn refused = supervisor.poll();
  EXPECT_EQ(refused.kind, Kind::kRefused);
  EXPECT_TRUE(refused.finished());
  ASSERT_TRUE(refused.report);
  EXPECT_EQ(refused.report->why, "test it");
  EXPECT_TRUE(host.cycles.empty());
}

TEST(Supervisor, TheReasonTheHostsWordsGoIntoIsInert) {
  FakeHost host;
  host.outputs = {report_text("running\x1b]0;owned\x07", {{"k0", 1}})};
  Supervisor supervisor(kSettings, host, host.clock());
  (void)supervisor.poll();
  host.now += seconds(600);
  const SupervisorTurn cycled = supervisor.poll();
  ASSERT_EQ(cycled.kind, Kind::kPowerCycled);
  EXPECT_EQ(cycled.reason.find('\x1b'), std::string::npos) << cycled.reason;
  EXPECT_NE(cycled.reason.find("state running\\x1b]0;owned\\x07"), std::string::npos)
      << cycled.reason;
}

TEST(Supervisor, StepsThatWentAwayAreProgress) {
  FakeHost host;
  host.outputs = {report_text("running", {{"k0", 5}, {"k7", 5}}), report_text("running", {})};
  Supervisor supervisor(kSettings, host, host.clock());
  (void)supervisor.poll();
  host.now += seconds(30);
  const SupervisorTurn reset = supervisor.poll();
  EXPECT_EQ(reset.kind, Kind::kProgress);
  EXPECT_TRUE(reset.changed_steps.empty());
}

}  // namespace
}  // namespace kdrift
