// The three-way verdict on real paired cases on this machine (issue 34): a zram device of the
// test's own, captured unchanged, and captured with its reads capped by cgroup v1 blkio throttling
// at 70 % of what it gave unthrottled, a real and controlled slowdown. Captures alternate, so the
// host's drift lands on both sides alike, and every pair is diffed as a user would:
// - unchanged against unchanged (a capture's odd rounds against its even ones, so that the host's
//   drift lands on both): "changed" in at most one of five pairs;
// - throttled against not: a regression in most pairs, and never "equivalent" nor an improvement
//   where the throttled side measured slower (the host can slow the device below the cap);
// - too few samples (one 2-second round a side): inconclusive, deciding seconds named;
// - two snapshots a side (`diff A1 A2 -- B1 B2`): likewise;
// and each report's exit status says what its verdicts say (1 a regression, 3 undecided), and an
// undecided text report never says that nothing differs. Label `verdicts` (scripts/test runs it
// with the full tiers, about two minutes, alone: throttling measures the device, not the host).

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iobench/rounds.h"
#include "model/job_result.h"
#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift::testing {
namespace {

constexpr const char* kBlkioRoot = "/sys/fs/cgroup/blkio";
// Pairs of captures, A unthrottled and B throttled, taken alternately.
constexpr int kPairs = 4;
constexpr double kCap = 0.7;
constexpr int kRounds = 6;

// A blkio cgroup of the test's own with a read IOPS cap on one device, removed on destruction
// (every process run in it has exited by then).
class ThrottleGroup {
 public:
  explicit ThrottleGroup(std::string path) : path_(std::move(path)) {
    ok_ = ::mkdir(path_.c_str(), 0755) == 0;
  }
  ThrottleGroup(const ThrottleGroup&) = delete;
  ThrottleGroup& operator=(const ThrottleGroup&) = delete;
  ~ThrottleGroup() {
    if (ok_) ::rmdir(path_.c_str());
  }
  bool ok() const { return ok_; }
  bool cap_reads(const std::string& device_number, long iops) const {
    std::ofstream out(path_ + "/blkio.throttle.read_iops_device");
    out << device_number << " " << iops << "\n";
    out.flush();
    return static_cast<bool>(out);
  }
  // A shell command that runs `command` inside the group.
  std::string inside(const std::string& command) const {
    return "sh -c 'echo $$ > " + path_ + "/cgroup.procs && exec " + command + "'";
  }

 private:
  std::string path_;
  bool ok_ = false;
};

std::string device_number(const std::string& device) {
  struct stat info {};
  if (::stat(device.c_str(), &info) != 0) return "";
  return std::to_string(major(info.st_rdev)) + ":" + std::to_string(minor(info.st_rdev));
}

struct Diffed {
  int status = -1;
  std::string text;
  Json job;  // the report's one probe job
};

Diffed diff(const std::string& sides) {
  Diffed out;
  const CommandRun text = run_kdrift("diff " + sides, true);
  out.status = text.status;
  out.text = text.out;
  const CommandRun json = run_kdrift("diff " + sides + " --format json", true);
  const Json report = Json::parse(json.out, nullptr, false);
  if (report.is_object() && report.contains("probe") && report["probe"].contains("jobs") &&
      report["probe"]["jobs"].size() == 1) {
    out.job = report["probe"]["jobs"][0];
  }
  return out;
}

std::string state_of(const Diffed& diffed) {
  return diffed.job.is_object() ? diffed.job.value("state", "") : "";
}
std::string verdict_of(const Diffed& diffed) {
  return diffed.job.is_object() ? diffed.job.value("verdict", "") : "";
}

// The exit status and the text agree with the verdict. Each case's verdict is printed, for the
// rates in docs/benchmarks.md.
void expect_consistent(const Diffed& diffed, const std::string& what) {
  SCOPED_TRACE(what);
  std::cout << what << ": " << verdict_of(diffed) << ", exit " << diffed.status;
  if (diffed.job.is_object() && diffed.job.contains("interval")) {
    const Json& interval = diffed.job["interval"];
    std::cout << ", ratio " << interval.value("ratio", 0.0) << " (" << interval.value("low", 0.0)
              << "-" << interval.value("high", 0.0) << ")";
  }
  if (diffed.job.is_object() && diffed.job.contains("decide")) {
    std::cout << ", decide " << diffed.job["decide"].dump();
  }
  std::cout << "\n";
  ASSERT_TRUE(diffed.job.is_object()) << diffed.text;
  if (verdict_of(diffed) == "regression") {
    EXPECT_EQ(diffed.status, 1) << diffed.text;
  }
  if (state_of(diffed) == "inconclusive") {
    EXPECT_TRUE(diffed.status == 3 || diffed.status == 1) << diffed.text;
    EXPECT_EQ(diffed.text.find("Nothing that matters for I/O differs"), std::string::npos)
        << diffed.text;
  }
}

class Verdicts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!is_root()) {
      GTEST_SKIP() << "needs root (zram, blkio cgroup)";
    }
    if (::access((std::string(kBlkioRoot) + "/blkio.throttle.read_iops_device").c_str(), W_OK) !=
        0) {
      GTEST_SKIP() << "no cgroup v1 blkio throttling at " << kBlkioRoot;
    }
    std::string reason;
    auto made = ZramDevice::create("512M", &reason);
    if (!made) {
      GTEST_SKIP() << "no zram device: " << reason;
    }
    zram_.emplace(std::move(*made));
    // Six 1-second rounds a side: the rounds' spread is the noise, and on this shared VM (runs
    // 15 % apart) three rounds left a 30 % cap undecided in 20 of 20 pairs.
    profile_ = write_profile("verdict", "1s");
    short_profile_ = write_profile("short", "2s");
    // Reads of pages never written cost zram nothing: fill the part the job reads.
    ASSERT_EQ(run_command("dd if=/dev/urandom of=" + zram_->path() +
                          " bs=1M count=256 oflag=direct status=none")
                  .status,
              0);
  }

  // One job, io_uring random 4K reads at depth 16, for `runtime` after a short ramp.
  std::string write_profile(const std::string& name, const std::string& runtime) {
    dir_.write(name + ".toml",
               "description = \"one job for the verdict tests\"\nramp = \"250ms\"\n"
               "runtime = \"" +
                   runtime +
                   "\"\n\n[[workload]]\nname = \"randread\"\n"
                   "engines = [\"io_uring\"]\nrw = \"randread\"\nbs = \"4k\"\n"
                   "iodepth = 16\n");
    return dir_.path() + "/" + name + ".toml";
  }

  // A snapshot with the probe on the zram device: `rounds` rounds, in the group if given.
  std::string capture(const std::string& name, int rounds, const ThrottleGroup* group = nullptr,
                      const std::string& profile = "") {
    std::string file = dir_.path() + "/" + name + ".json";
    const std::string command = kdrift_binary() + " capture --probe " +
                                (profile.empty() ? profile_ : profile) + " --target " +
                                zram_->path() + " --rounds " + std::to_string(rounds) +
                                " --no-trace -o " + file;
    const CommandRun run = run_command(group != nullptr ? group->inside(command) : command);
    EXPECT_EQ(run.status, 0) << run.out;
    return file;
  }

  static double iops_of(const std::string& file) {
    std::ifstream in(file);
    const Json snapshot = Json::parse(in, nullptr, false);
    return snapshot["probe"]["jobs"][0]["read"].value("iops", 0.0);
  }

  // Whether the throttled captures measured at least 10 % fewer IOPS than the unthrottled ones.
  // The cap is 70 % of the capture before it, but when the host itself slows the device below
  // the cap (this VM's level halves when other work starts), the cap holds nothing back, and
  // "equivalent" or even "improvement" is then what the data say.
  static bool slowed_down(const std::vector<std::string>& unthrottled,
                          const std::vector<std::string>& throttled) {
    const auto mean_iops = [](const std::vector<std::string>& files) {
      double sum = 0;
      for (const auto& file : files)
        sum += iops_of(file);
      return sum / static_cast<double>(files.size());
    };
    const double before = mean_iops(unthrottled);
    const double after = mean_iops(throttled);
    return after < 0.9 * before;
  }

  // The capture's odd rounds and its even rounds as two snapshots, each job entry picked from
  // its rounds by the runner's own median_round: an unchanged pair whose sides took turns on the
  // device second by second, so that the host's drift lands on both alike.
  static std::pair<std::string, std::string> split_rounds(const std::string& file) {
    std::ifstream in(file);
    const Json snapshot = Json::parse(in, nullptr, false);
    const auto job = JobResult::from_json(snapshot["probe"]["jobs"][0]);
    EXPECT_TRUE(job.ok() && job->rounds) << file;
    std::pair<std::string, std::string> halves{file + ".odd.json", file + ".even.json"};
    if (!job.ok() || !job->rounds) return halves;
    for (const auto& [first, name] : {std::pair{0U, halves.first}, std::pair{1U, halves.second}}) {
      std::vector<JobResult> rounds;
      for (std::size_t index = first; index < job->rounds->size(); index += 2) {
        const RoundResult& summary = (*job->rounds)[index];
        JobResult round = *job;
        round.elapsed_s = summary.elapsed_s;
        round.read = summary.read;
        round.write = summary.write;
        rounds.push_back(std::move(round));
      }
      Json half = snapshot;
      half["probe"]["rounds"] = rounds.size();
      half["probe"]["jobs"][0] = median_round(std::move(rounds)).to_json();
      std::ofstream(name) << half.dump();
    }
    return halves;
  }

  TempDir dir_;
  std::optional<ZramDevice> zram_;
  std::string profile_;
  std::string short_profile_;
};

TEST_F(Verdicts, UnchangedThrottledAndTooFewSamplesGetTheirVerdicts) {
  ThrottleGroup group(std::string(kBlkioRoot) + "/kdrift-verdict-" + std::to_string(::getpid()));
  ASSERT_TRUE(group.ok());
  const std::string device = device_number(zram_->path());
  // Each B is capped at 70 % of the A just before it and compared with its two neighbours only:
  // this VM's level moves by half between minutes when other work starts or stops on the host
  // (260k to 405k IOPS between two captures a few seconds apart), which a cap set once, or a
  // pair a minute apart, would measure instead of the throttling.
  // Each A takes twice the rounds, split in two for the unchanged pairs.
  std::vector<std::string> a{capture("a0", 2 * kRounds)};
  std::vector<std::string> b;
  for (int pair = 0; pair < kPairs; ++pair) {
    const double unthrottled = iops_of(a.back());
    ASSERT_GT(unthrottled, 0);
    ASSERT_TRUE(group.cap_reads(device, std::lround(kCap * unthrottled)));
    b.push_back(capture("b" + std::to_string(pair), kRounds, &group));
    a.push_back(capture("a" + std::to_string(pair + 1), 2 * kRounds));
  }
  int regressions = 0;
  int throttled_pairs = 0;
  int unchanged_called_changed = 0;
  int not_slowed = 0;
  for (std::size_t index = 0; index < a.size(); ++index) {
    const auto [odd, even] = split_rounds(a[index]);
    const Diffed same = diff(odd + " " + even);
    expect_consistent(same, "unchanged, a" + std::to_string(index) + "'s odd against even rounds");
    unchanged_called_changed += state_of(same) == "changed" ? 1 : 0;
  }
  for (int pair = 0; pair < kPairs; ++pair) {
    const std::string name = std::to_string(pair);
    // Neighbours seconds apart: the host's level can move between them, so what they are called
    // is printed and held to its exit status only.
    expect_consistent(diff(a[pair] + " " + a[pair + 1]), "a" + name + " against the next");
    for (const std::string& unthrottled : {a[pair], a[pair + 1]}) {
      const Diffed slower = diff(unthrottled + " " + b[pair]);
      expect_consistent(slower, unthrottled + " against b" + name);
      regressions += verdict_of(slower) == "regression" ? 1 : 0;
      ++throttled_pairs;
      if (!slowed_down({unthrottled}, {b[pair]})) {
        ++not_slowed;
        continue;
      }
      EXPECT_NE(state_of(slower), "equivalent") << slower.text;
      EXPECT_NE(verdict_of(slower), "improvement") << slower.text;
    }
  }
  // The rule calls a change in at most 1 % of unchanged pairs (the simulation tier holds it to
  // that). Neighbouring captures are no unchanged pair on this VM, whose level moved 1.55x
  // between two captures 16 s apart; halves that took turns second by second are. One of five
  // leaves room for a burst that happened to land on one half's seconds.
  EXPECT_LE(unchanged_called_changed, 1) << "unchanged halves called changed";
  // How many throttled pairs are decided depends on the host's noise during the run (5 and 6 of
  // 8 on a quiet machine, 2 of 8 beside three builds); that some are, and none wrongly, is what
  // a single run can show. The rates are the simulation tier's and scripts/bench/verdict-rates.sh.
  EXPECT_GE(regressions, 1) << regressions << " of " << throttled_pairs
                            << " throttled pairs called a regression";
  for (const auto& [first, second] : {std::pair{0, 1}, std::pair{2, 3}}) {
    const Diffed sets = diff(a[first] + " " + a[second] + " -- " + b[first] + " " + b[second]);
    expect_consistent(sets, "two snapshots a side");
    if (!slowed_down({a[first], a[second]}, {b[first], b[second]})) {
      ++not_slowed;
      continue;
    }
    EXPECT_NE(state_of(sets), "equivalent") << sets.text;
    EXPECT_NE(verdict_of(sets), "improvement") << sets.text;
  }
  if (not_slowed > 0) {
    std::cout << not_slowed << " throttled comparisons measured no slower: the host had slowed "
              << "the device below the cap\n";
  }
  // One 2-second round a side: two per-second samples, which no rank test can decide on.
  const Diffed short_runs = diff(capture("short-a", 1, nullptr, short_profile_) + " " +
                                 capture("short-b", 1, &group, short_profile_));
  expect_consistent(short_runs, "one 2-second round a side");
  EXPECT_EQ(state_of(short_runs), "inconclusive") << short_runs.text;
  ASSERT_TRUE(short_runs.job.contains("decide")) << short_runs.text;
  EXPECT_EQ(short_runs.job["decide"].value("unit", ""), "seconds");
  EXPECT_GT(short_runs.job["decide"].value("needed", 0), 2);
}

}  // namespace
}  // namespace kdrift::testing
