#include "boot/boot_command.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// A boot command written as a shell script, and the results folder it is given.
struct Lab {
  TempDir root;
  TrustedDir results =
      TrustedDir::open(root.path() + "/results", TrustedDir::Missing::kCreate, 0700).value();

  Result<BootCommandOutcome> boot(const std::string& script, int timeout_seconds = 30) {
    root.write("boot", "#!/bin/sh\n" + script);
    ::chmod((root.path() + "/boot").c_str(), 0700);
    BootCommandRequest request;
    request.command = root.path() + "/boot";
    request.environment = {{"KDRIFT_BISECT_RUNS", "3"}};
    request.timeout = std::chrono::seconds(timeout_seconds);
    request.results = &results;
    request.log_path = root.path() + "/boot.log";
    request.exit_status_is_verdict = verdict;
    return run_boot_command(request);
  }
  bool verdict = false;
};

TEST(BootCommand, ItsMeasurementsAreTheFilesItLeftInNameOrder) {
  Lab lab;
  auto outcome = lab.boot(
      "for i in $(seq $KDRIFT_BISECT_RUNS); do echo '{}' > $KDRIFT_BISECT_RESULTS/run-$i.json; "
      "done; echo booted\n");
  ASSERT_TRUE(outcome) << outcome.error().describe();
  EXPECT_EQ(outcome->kind, BootCommandOutcome::Kind::kReported);
  EXPECT_EQ(outcome->results, (std::vector<std::string>{"run-1.json", "run-2.json", "run-3.json"}));
  EXPECT_EQ(testing::read_bytes(lab.root.path() + "/boot.log"), "booted\n");
}

TEST(BootCommand, EarlierFilesAreNotPassedOffAsThisBootsMeasurements) {
  Lab lab;
  lab.root.write("results/run-9.json", "{}");
  auto outcome = lab.boot("exit 0\n");
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->kind, BootCommandOutcome::Kind::kNotBooted);
  EXPECT_NE(outcome->why.find("left no measurement"), std::string::npos);
}

TEST(BootCommand, Exit125IsACandidateThatDidNotBootAndOtherFailuresStopTheBisect) {
  Lab lab;
  auto skipped = lab.boot("exit 125\n");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->kind, BootCommandOutcome::Kind::kNotBooted);
  auto failed = lab.boot("exit 3\n");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->kind, BootCommandOutcome::Kind::kFailed);
  EXPECT_NE(failed->why.find("exit 3"), std::string::npos);
}

TEST(BootCommand, WithoutAMeasurementTheExitStatusIsTheVerdict) {
  Lab lab;
  lab.verdict = true;
  for (const auto& [script, kind] : std::vector<std::pair<std::string, BootCommandOutcome::Kind>>{
           {"exit 0\n", BootCommandOutcome::Kind::kReported},
           {"exit 1\n", BootCommandOutcome::Kind::kReported},
           {"exit 125\n", BootCommandOutcome::Kind::kNotBooted},
           {"exit 130\n", BootCommandOutcome::Kind::kFailed}}) {
    auto outcome = lab.boot(script);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->kind, kind) << script;
  }
}

TEST(BootCommand, ACommandThatHangsIsABootThatDidNotComeBack) {
  Lab lab;
  const auto started = std::chrono::steady_clock::now();
  auto outcome = lab.boot("sleep 60 & sleep 60\n", 1);
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(outcome->timed_out);
  EXPECT_EQ(outcome->kind, BootCommandOutcome::Kind::kNotBooted);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

TEST(BootCommand, ALinkLeftInTheResultsIsNeverFollowed) {
  Lab lab;
  auto outcome = lab.boot(
      "ln -s /etc/shadow $KDRIFT_BISECT_RESULTS/run-1.json; echo '{}' > "
      "$KDRIFT_BISECT_RESULTS/run-2.json\n");
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->results, std::vector<std::string>{"run-2.json"});
  EXPECT_NE(outcome->why.find("not a regular file"), std::string::npos);
}

TEST(BootCommand, AProgramThatCannotRunIsAnErrorNotAnOutcome) {
  Lab lab;
  BootCommandRequest request;
  request.command = lab.root.path() + "/missing";
  request.results = &lab.results;
  request.log_path = lab.root.path() + "/boot.log";
  EXPECT_FALSE(run_boot_command(request));
}

}  // namespace
}  // namespace kdrift
