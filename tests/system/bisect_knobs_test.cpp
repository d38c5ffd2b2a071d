// kdrift bisect knobs on a loop device this test creates: two real captures that differ in the
// device's queue settings, each knob applied alone, probed and put back; and a run killed with a
// knob applied, which the next run restores before anything else. Needs root.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/probe_runs.h"
#include "support/system.h"
#include "util/text.h"

namespace kdrift {
namespace {

using testing::LoopDevice;
using testing::run_kdrift;
using testing::TempDir;

std::string read_trimmed(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return std::string(trim(text.str()));
}

// The value as written: the scheduler's active name.
std::string live_value(const std::string& path) {
  const std::string text = read_trimmed(path);
  const auto choice = parse_bracketed_choice(text);
  return choice ? choice->active : text;
}

void write_text(const std::string& path, const std::string& value) {
  std::ofstream file(path);
  file << value;
  file.flush();
  ASSERT_TRUE(file) << "write " << value << " to " << path;
}

// About 0.7 s a metric run: reads of a sparse loop device, shorter than a second, so the
// metric is the whole run's IOPS.
void write_profile(const TempDir& dir, const std::string& name, const std::string& runtime) {
  dir.write(name,
            "description = \"bisect knobs test\"\nsize = \"32m\"\nramp = \"0s\"\nruntime = \"" +
                runtime +
                "\"\n\n[[workload]]\nname = \"randread\"\nengines = [\"io_uring\"]\n"
                "rw = \"randread\"\nbs = \"4k\"\niodepth = 4\n");
}

// Another value than the one in force: read_ahead_kb and nomerges always, the scheduler when
// the kernel offers another.
std::map<std::string, std::string> bad_values_for(const std::string& queue) {
  std::map<std::string, std::string> values;
  values["read_ahead_kb"] = live_value(queue + "read_ahead_kb") == "4096" ? "512" : "4096";
  values["nomerges"] = live_value(queue + "nomerges") == "2" ? "1" : "2";
  if (const auto schedulers = parse_bracketed_choice(read_trimmed(queue + "scheduler"))) {
    for (const std::string& name : schedulers->available) {
      if (name != schedulers->active) {
        values["scheduler"] = name;
        break;
      }
    }
  }
  return values;
}

// Only read_ahead_kb: the kill and signal tests need one knob, applied in the first round.
std::map<std::string, std::string> read_ahead_only(const std::string& queue) {
  return {{"read_ahead_kb", bad_values_for(queue).at("read_ahead_kb")}};
}

class BisectKnobs : public ::testing::Test {
 protected:
  // A loop device and two captures: good as it is, bad with the values bad_values_of gives for
  // its queue directory applied (then undone).
  template <class BadValues>
  bool prepare(BadValues bad_values_of) {
    std::string reason;
    auto created = LoopDevice::create_sparse(dir_.path(), "64M", &reason);
    if (!created) {
      skip_reason_ = reason;
      return false;
    }
    loop_.emplace(std::move(*created));
    queue_ = "/sys/block/" + loop_->name() + "/queue/";
    bad_ = bad_values_of(queue_);
    const auto& bad_values = bad_;
    for (const auto& [knob, value] : bad_values)
      original_[knob] = live_value(queue_ + knob);
    nr_requests_ = live_value(queue_ + "nr_requests");
    capture("good.json");
    for (const auto& [knob, value] : bad_values)
      write_text(queue_ + knob, value);
    capture("bad.json");
    for (const auto& [knob, value] : original_)
      write_text(queue_ + knob, value);
    for (const auto& [knob, value] : original_)
      EXPECT_EQ(live_value(queue_ + knob), value) << knob;
    return true;
  }
  void capture(const std::string& name) {
    const auto run = run_kdrift("capture -o " + dir_.path() + "/" + name);
    ASSERT_EQ(run.status, 0) << run.out;
  }
  std::string knobs_arguments(const std::string& profile, int runs) const {
    return "bisect --state-dir " + state() + " knobs --good " + dir_.path() + "/good.json --bad " +
           dir_.path() + "/bad.json --metric probe:" + dir_.path() + "/" + profile +
           ":io_uring:4:iops --target " + loop_->path() + " --runs " + std::to_string(runs);
  }
  std::string state() const { return dir_.path() + "/state"; }
  // The report's entries for the knobs the test changed. A scheduler switch changes
  // nr_requests too, so the captures may differ in more than those.
  std::vector<Json> changed_knobs(const Json& report) const {
    std::vector<Json> knobs;
    for (const Json& knob : report.at("knobs")) {
      const std::string path = knob.value("path", "");
      if (starts_with(path, queue_) && bad_.count(path.substr(queue_.size())) > 0) {
        knobs.push_back(knob);
      }
    }
    return knobs;
  }
  void expect_restored() const {
    for (const auto& [knob, value] : original_)
      EXPECT_EQ(live_value(queue_ + knob), value) << knob << " not restored";
    // What a scheduler switch resets is put back too.
    EXPECT_EQ(live_value(queue_ + "nr_requests"), nr_requests_);
    EXPECT_FALSE(std::filesystem::exists(state() + "/applied.json"));
  }

  // Starts a run in the background and returns its pid once it holds a knob at its bad value
  // (its record written, then the write itself), or 0 when none came within two minutes.
  pid_t start_with_a_knob_applied(const std::string& profile) const {
    const std::string binary = testing::kdrift_binary();
    const std::vector<std::string> words = split_whitespace(knobs_arguments(profile, 2));
    const pid_t child = ::fork();
    if (child < 0) return 0;
    if (child == 0) {
      std::vector<char*> argv{const_cast<char*>(binary.c_str())};
      for (const std::string& word : words)
        argv.push_back(const_cast<char*>(word.c_str()));
      argv.push_back(nullptr);
      (void)std::freopen("/dev/null", "w", stdout);
      (void)std::freopen("/dev/null", "w", stderr);
      ::execv(binary.c_str(), argv.data());
      ::_exit(127);
    }
    const std::string record = state() + "/applied.json";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!std::filesystem::exists(record) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!std::filesystem::exists(record)) {
      ::kill(child, SIGKILL);
      ::waitpid(child, nullptr, 0);
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    return child;
  }

  TempDir dir_;
  std::optional<LoopDevice> loop_;
  std::string queue_;
  std::map<std::string, std::string> original_;
  std::map<std::string, std::string> bad_;
  std::string nr_requests_;
  std::string skip_reason_;
};

TEST_F(BisectKnobs, EveryKnobOfTheTargetIsTestedAndRestored) {
  REQUIRE_ROOT();
  if (!prepare(bad_values_for)) GTEST_SKIP() << skip_reason_;
  const auto& bad = bad_;
  write_profile(dir_, "tiny.toml", "300ms");

  const auto planned =
      run_kdrift(knobs_arguments("tiny.toml", 3) + " --dry-run --format json", true);
  ASSERT_EQ(planned.status, 0) << planned.out;
  const Json plan = Json::parse(planned.out);
  ASSERT_EQ(changed_knobs(plan).size(), bad.size()) << plan.dump(1);
  for (const Json& knob : changed_knobs(plan))
    EXPECT_EQ(knob["status"], "planned") << knob.dump();
  EXPECT_FALSE(std::filesystem::exists(state())) << "a dry run wrote its state directory";

  const auto ran = run_kdrift(knobs_arguments("tiny.toml", 3) + " --format json", true);
  ASSERT_TRUE(ran.status == 0 || ran.status == 1) << ran.out;
  const Json report = Json::parse(ran.out);
  EXPECT_EQ(report["device"], loop_->name());
  EXPECT_EQ(report["baseline"]["values"].size(), 3u);
  EXPECT_GE(report["tested"].get<int>(), static_cast<int>(bad.size()));
  // Three runs a side cannot reach 0.01 / knobs: the report says so and how many would.
  EXPECT_FALSE(report["resolvable"].get<bool>());
  EXPECT_NE(report.value("resolution", "").find("--runs"), std::string::npos);
  const auto knobs = changed_knobs(report);
  ASSERT_EQ(knobs.size(), bad.size()) << report.dump(1);
  for (const Json& knob : knobs) {
    const std::string status = knob.value("status", "");
    EXPECT_TRUE(status == "toward bad" || status == "toward good" || status == "no change")
        << knob.dump();
    EXPECT_EQ(knob["values"].size(), 3u) << knob.dump();
    EXPECT_TRUE(knob["restored"].get<bool>());
    EXPECT_GT(knob["median"].get<double>(), 0);
    const std::string name = knob.value("path", "").substr(queue_.size());
    EXPECT_EQ(knob["bad"], bad.at(name));
    EXPECT_EQ(knob["good"], original_.at(name));
  }
  EXPECT_TRUE(report["toward_bad"].is_array());
  EXPECT_EQ(report["restored_first"], Json::array());
  expect_restored();
}

TEST_F(BisectKnobs, ARunKilledWithAKnobAppliedIsRestoredByTheNext) {
  REQUIRE_ROOT();
  if (!prepare(read_ahead_only)) GTEST_SKIP() << skip_reason_;
  write_profile(dir_, "slow.toml", "3s");
  write_profile(dir_, "tiny.toml", "300ms");

  const pid_t child = start_with_a_knob_applied("slow.toml");
  ASSERT_GT(child, 0) << "no record appeared within 120 s";
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
  EXPECT_EQ(live_value(queue_ + "read_ahead_kb"), bad_["read_ahead_kb"])
      << "the kill left nothing applied";

  const auto ran = run_kdrift(knobs_arguments("tiny.toml", 2) + " --format json", true);
  ASSERT_TRUE(ran.status == 0 || ran.status == 1) << ran.out;
  const Json report = Json::parse(ran.out);
  ASSERT_EQ(report["restored_first"].size(), 1u) << report.dump(1);
  EXPECT_EQ(report["restored_first"][0]["path"], queue_ + "read_ahead_kb");
  EXPECT_EQ(report["restored_first"][0]["value"], original_["read_ahead_kb"]);
  // Restored before the plan: the knob was at its good value again, so it was tested.
  const auto knobs = changed_knobs(report);
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_NE(knobs[0]["status"], "not tested") << knobs[0].dump();
  expect_restored();
}

TEST_F(BisectKnobs, ASignalStopsTheRunWithTheKnobPutBack) {
  REQUIRE_ROOT();
  if (!prepare(read_ahead_only)) GTEST_SKIP() << skip_reason_;
  write_profile(dir_, "slow.toml", "3s");

  const pid_t child = start_with_a_knob_applied("slow.toml");
  ASSERT_GT(child, 0) << "no record appeared within 120 s";
  ASSERT_EQ(live_value(queue_ + "read_ahead_kb"), bad_["read_ahead_kb"]);
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  // The probe under way finishes, the knob goes back, then the command stops with an error.
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping";
  EXPECT_EQ(WEXITSTATUS(status), 2);
  expect_restored();
}

}  // namespace
}  // namespace kdrift
