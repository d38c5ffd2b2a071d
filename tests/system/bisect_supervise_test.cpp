// kdrift bisect supervise through the real binary, against a host made of files: the status
// command is a script that prints the host's report file (or fails as ssh does when the host is
// down), and a queue of reports is the host making progress, one a poll; the power-cycle command
// appends to a log and brings the host back when the test left it a report to come back with.
// Small timeouts (--timeout 2 --interval 1): each test takes a few seconds of real time.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <tuple>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr const char* kStatusScript = R"sh(#!/bin/sh
# The host as ssh reaches it: down, or its report; the next report of the queue on each poll.
m="$KDRIFT_FAKE_HOST"
echo poll >> "$m/polls"
if [ -e "$m/down" ]; then echo "ssh: connect to host lab1 port 22: No route to host" >&2; exit 255; fi
next=$(ls "$m/queue" 2>/dev/null | sort -n | head -n 1)
if [ -n "$next" ]; then mv "$m/queue/$next" "$m/report.json"; fi
cat "$m/report.json"
)sh";

constexpr const char* kPowerCycleScript = R"sh(#!/bin/sh
# The PDU: logs the cycle; a host that comes back is up with the report it was left.
m="$KDRIFT_FAKE_HOST"
echo "cycle $KDRIFT_SUPERVISE_CYCLE: $KDRIFT_SUPERVISE_REASON" >> "$m/power.log"
if [ -e "$m/pdu-fails" ]; then echo "pdu: outlet 4: authentication failed"; exit 1; fi
if [ -e "$m/comes-back.json" ]; then rm -f "$m/down"; mv "$m/comes-back.json" "$m/report.json"; fi
exit 0
)sh";

// A report as kdrift bisect report --format json prints it: c0 and c5 measured, c2 with samples.
std::string report(const std::string& state, int samples, int crashes = 0) {
  Json document = {{"id", "b1"},          {"state", state},
                   {"good", "c0"},        {"bad", "c5"},
                   {"why", "bisecting"},  {"first_bad", state == "done" ? Json("c4") : Json()},
                   {"could_also_be", {}}, {"mode", "reboot"}};
  document["steps"] = Json::array();
  for (const auto& [name, count, crashed] :
       {std::tuple{"c0", 3, 0}, std::tuple{"c5", 3, 0}, std::tuple{"c2", samples, crashes}}) {
    document["steps"].push_back(
        {{"candidate", name}, {"samples", count}, {"crashes", crashed}, {"verdict", "good"}});
  }
  return document.dump(2) + "\n";
}

std::size_t lines_in(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class BisectSupervise : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("status", kStatusScript);
    dir_.write("power-cycle", kPowerCycleScript);
    ASSERT_EQ(
        testing::run_command("chmod +x " + dir_.path() + "/status " + dir_.path() + "/power-cycle")
            .status,
        0);
    dir_.write("report.json", report("running", 1));
  }
  // kdrift bisect supervise with the fakes and small times, and how long it ran.
  testing::CommandRun supervise(const std::string& options = "") {
    const auto started = std::chrono::steady_clock::now();
    auto run = testing::run_command(
        "env KDRIFT_FAKE_HOST=" + dir_.path() + " " + testing::kdrift_binary() +
        " bisect supervise --status-command " + dir_.path() + "/status --power-cycle " +
        dir_.path() + "/power-cycle --timeout 2 --interval 1 " + options);
    took_ = std::chrono::steady_clock::now() - started;
    return run;
  }
  std::string power_log() const { return testing::read_bytes(dir_.path() + "/power.log"); }

  TempDir dir_;
  std::chrono::steady_clock::duration took_{};
};

TEST_F(BisectSupervise, ProgressOnEveryPollKeepsTheHostFromBeingPowerCycled) {
  for (int poll = 1; poll <= 5; ++poll)
    dir_.write("queue/" + std::to_string(poll), report("running", poll + 1));
  dir_.write("queue/6", report("done", 7));
  const auto run = supervise();
  ASSERT_EQ(run.status, 0) << run.out;
  // Six polls a second apart: more than twice the timeout without a power cycle.
  EXPECT_GE(took_, std::chrono::seconds(5));
  EXPECT_EQ(power_log(), "");
  EXPECT_NE(run.out.find("progress: c2 3 samples\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("done: first bad: c4\n"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("power cycle"), std::string::npos) << run.out;
}

TEST_F(BisectSupervise, AStuckHostIsPowerCycledAfterTheTimeoutAndComesBack) {
  // The host comes back on the good kernel, which found the candidate's crash; the bisect then
  // has its answer.
  dir_.write("comes-back.json", report("done", 1, 1));
  const auto run = supervise();
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_GE(took_, std::chrono::seconds(2));
  const std::string log = power_log();
  EXPECT_EQ(lines_in(log), 1U) << log;
  EXPECT_EQ(log.rfind("cycle 1: no progress for ", 0), 0U) << log;
  EXPECT_NE(log.find("the report is unchanged (state running, 3 steps)"), std::string::npos) << log;
  EXPECT_NE(run.out.find("power cycle 1 of 5: no progress for "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("progress: state done; c2 1 sample, 1 crash\n"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("done: first bad: c4"), std::string::npos) << run.out;
}

TEST_F(BisectSupervise, AHostThatStaysDownIsGivenUpOnAfterTheLastPowerCycle) {
  dir_.write("down", "");
  dir_.write("pdu-fails", "");
  const auto run = supervise("--max-power-cycles 2");
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_GE(took_, std::chrono::seconds(6));
  const std::string log = power_log();
  ASSERT_EQ(lines_in(log), 2U) << log;
  EXPECT_NE(log.find("cycle 2: no progress for "), std::string::npos) << log;
  const std::string failed_poll =
      dir_.path() + "/status exited 255: ssh: connect to host lab1 port 22: No route to host";
  EXPECT_NE(log.find("the last poll failed: " + failed_poll), std::string::npos) << log;
  // The failed poll is said once, not every second.
  const std::string said = "no report: " + failed_poll;
  EXPECT_EQ(run.out.find(said), run.out.rfind(said)) << run.out;
  EXPECT_NE(run.out.find("power cycle 2 failed (counted all the same): " + dir_.path() +
                         "/power-cycle exited 1: pdu: outlet 4: authentication failed"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("gave up: the host did not come back after 2 power cycles"),
            std::string::npos)
      << run.out;
}

TEST_F(BisectSupervise, ARefusedBisectExits1AndTheHostsWordsReachNoTerminal) {
  Json refused = Json::parse(report("refused", 3));
  refused["why"] = "\x1b]0;owned\x07 endpoints do not differ";
  refused["steps"][2]["candidate"] = "c2\x1b[2J";
  dir_.write("report.json", refused.dump());
  const auto run = supervise();
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("refused: \\x1b]0;owned\\x07 endpoints do not differ"), std::string::npos)
      << run.out;
}

TEST_F(BisectSupervise, ARelativeOrNonExecutableCommandIsRefusedBeforeAnythingRuns) {
  const auto relative = testing::run_command(
      "cd " + dir_.path() + " && " + testing::kdrift_binary() +
      " bisect supervise --status-command status --power-cycle " + dir_.path() + "/power-cycle");
  EXPECT_EQ(relative.status, 2) << relative.out;
  EXPECT_NE(relative.out.find("--status-command: give the program's absolute path"),
            std::string::npos)
      << relative.out;
  dir_.write("not-executable", "#!/bin/sh\n");
  const auto plain = testing::run_command(
      testing::kdrift_binary() + " bisect supervise --status-command " + dir_.path() +
      "/status --power-cycle " + dir_.path() + "/not-executable");
  EXPECT_EQ(plain.status, 2) << plain.out;
  EXPECT_NE(plain.out.find("--power-cycle: " + dir_.path() + "/not-executable"), std::string::npos)
      << plain.out;
  EXPECT_EQ(testing::read_bytes(dir_.path() + "/polls"), "");
}

TEST_F(BisectSupervise, SigtermEndsTheLoopAndSaysSo) {
  dir_.write("down", "");
  const auto run = testing::run_command(
      "env KDRIFT_FAKE_HOST=" + dir_.path() + " " + testing::kdrift_binary() +
      " bisect supervise --status-command " + dir_.path() + "/status --power-cycle " + dir_.path() +
      "/power-cycle --timeout 60 --interval 1 > " + dir_.path() +
      "/out 2>&1 & pid=$!; sleep 2; kill -TERM $pid; wait $pid; echo \"exit $?\"");
  EXPECT_EQ(run.out, "exit 143\n");
  const std::string out = testing::read_bytes(dir_.path() + "/out");
  EXPECT_NE(out.find("stopped by SIGTERM; the host's bisect goes on without supervision"),
            std::string::npos)
      << out;
  EXPECT_EQ(power_log(), "");
}

}  // namespace
}  // namespace kdrift
