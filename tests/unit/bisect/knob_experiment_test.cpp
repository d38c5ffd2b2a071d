#include "bisect/knob_experiment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>

#include "bisect/knob_switch.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

Json snapshot(int read_ahead, int nomerges, int nr_requests, const std::string& scheduler) {
  return {{"block",
           {{"devices",
             {{"nvme0n1",
               {{"queue",
                 {{"read_ahead_kb", read_ahead},
                  {"nomerges", nomerges},
                  {"nr_requests", nr_requests},
                  {"scheduler", "[" + scheduler + "] none"}}},
                {"scheduler", {{"active", scheduler}}}}},
              {"sda", {{"queue", {{"read_ahead_kb", read_ahead}}}}}}}}}};
}

// The probe's figure as the tree's knobs make it: read_ahead_kb 4096 halves it, nomerges does
// nothing; a little spread round to round (the same for every run of a round: three a round).
class TreeBench : public KnobBench {
 public:
  explicit TreeBench(const SysRoot& root) : root_(root) {}
  Result<double> measure(const ProbeMetric& metric, const std::string& target) override {
    EXPECT_EQ(metric.statistic, "iops");
    EXPECT_EQ(target, "/dev/nvme0n1");
    const int round = runs++ / 3;
    const auto read_ahead = read_knob(root_, "/sys/block/nvme0n1/queue/read_ahead_kb");
    const double level = read_ahead && *read_ahead == "4096" ? 50.0 : 100.0;
    return level + round % 3;
  }
  int stop_signal() override { return runs >= stop_after ? 2 : 0; }

  int runs = 0;
  int stop_after = 1 << 30;

 private:
  const SysRoot& root_;
};

class KnobExperimentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.write("sys/block/nvme0n1/queue/read_ahead_kb", "128\n");
    tree_.write("sys/block/nvme0n1/queue/nomerges", "0\n");
    tree_.write("sys/block/nvme0n1/queue/scheduler", "[none] mq-deadline\n");
    tree_.write("sys/block/sda/queue/read_ahead_kb", "128\n");
    tree_.mkdir("state");
    auto records = TrustedDir::open(tree_.path() + "/state");
    ASSERT_TRUE(records) << records.error().describe();
    records_.emplace(std::move(*records));
  }
  KnobExperiment plan(int runs) const {
    // nr_requests differs but the tree has no such file: not tested, with the reason.
    return plan_knob_experiment(snapshot(128, 0, 64, "none"), snapshot(4096, 2, 32, "none"), root_,
                                std::string("nvme0n1"), metric_, "/dev/nvme0n1", runs);
  }
  std::string record() const { return tree_.path() + "/state/applied.json"; }
  const TrustedDir& records() const { return *records_; }

  TempDir tree_;
  std::optional<TrustedDir> records_;
  const SysRoot root_{tree_.path()};
  const ProbeMetric metric_{"quick", "io_uring", 16, "iops"};
};

TEST_F(KnobExperimentTest, AlphaIsSharedOverTheKnobsThatCanBeTested) {
  const KnobExperiment experiment = plan(0);
  ASSERT_EQ(experiment.rows.size(), 4u);
  EXPECT_EQ(experiment.planned, 2);  // nvme0n1's nomerges and read_ahead_kb
  EXPECT_DOUBLE_EQ(experiment.alpha_per_knob, kKnobAlpha / 2);
  EXPECT_EQ(experiment.needed, runs_to_resolve(kKnobAlpha / 2));
  EXPECT_EQ(experiment.runs, experiment.needed);
  const Json plan_report = knob_experiment_json(experiment, true);
  EXPECT_TRUE(plan_report.at("resolvable").get<bool>());
  EXPECT_FALSE(plan_report.contains("resolution"));
  EXPECT_FALSE(plan_report.contains("baseline"));
  EXPECT_EQ(plan_report.at("tested"), 0);
  std::map<std::string, std::string> status;
  for (const Json& knob : plan_report.at("knobs"))
    status[knob.at("label")] = knob.at("status");
  EXPECT_EQ(status["nvme0n1 read_ahead_kb"], "planned");
  EXPECT_EQ(status["nvme0n1 nr_requests"], "not tested");
  EXPECT_EQ(status["sda read_ahead_kb"], "not tested");

  const Json too_few = knob_experiment_json(plan(2), true);
  EXPECT_FALSE(too_few.at("resolvable").get<bool>());
  EXPECT_EQ(too_few.at("resolution"),
            "2 runs per side cannot reach p <= 0.005 (alpha 0.01 over 2 knobs): give --runs " +
                std::to_string(experiment.needed) + " or more");
}

TEST_F(KnobExperimentTest, RoundsNameTheKnobThatMovesTheFigureAndPutEverythingBack) {
  KnobExperiment experiment = plan(0);
  TreeBench bench(root_);
  std::ostringstream progress;
  const Status done = run_knob_rounds(experiment, bench, root_, records(), progress);
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(bench.runs, 3 * experiment.runs);  // the baseline and two knobs a round
  EXPECT_NE(progress.str().find("round 1 of " + std::to_string(experiment.runs)),
            std::string::npos);
  EXPECT_EQ(*read_knob(root_, "/sys/block/nvme0n1/queue/read_ahead_kb"), "128");
  EXPECT_EQ(*read_knob(root_, "/sys/block/nvme0n1/queue/nomerges"), "0");
  EXPECT_FALSE(std::filesystem::exists(record()));

  const Json report = knob_experiment_json(experiment, false);
  EXPECT_EQ(report.at("toward_bad"), Json::array({"nvme0n1 read_ahead_kb"}));
  EXPECT_EQ(report.at("tested"), 2);
  EXPECT_EQ(report.at("baseline").at("values").size(), static_cast<std::size_t>(experiment.runs));
  const Json& first = report.at("knobs").at(0);
  EXPECT_EQ(first.at("label"), "nvme0n1 read_ahead_kb");  // ranked first: toward bad
  EXPECT_EQ(first.at("status"), "toward bad");
  EXPECT_LT(first.at("ratio").get<double>(), 0.6);
  EXPECT_EQ(report.at("knobs").at(1).at("status"), "no change");
}

TEST_F(KnobExperimentTest, AStopSignalEndsTheRoundsWithEveryKnobBack) {
  KnobExperiment experiment = plan(0);
  TreeBench bench(root_);
  bench.stop_after = 2;
  std::ostringstream progress;
  const Status stopped = run_knob_rounds(experiment, bench, root_, records(), progress);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().describe(),
            "bisect knobs: stopped by signal 2; every knob is back at its good value");
  EXPECT_EQ(bench.runs, 2);
  EXPECT_EQ(*read_knob(root_, "/sys/block/nvme0n1/queue/nomerges"), "0");
  EXPECT_FALSE(std::filesystem::exists(record()));
}

TEST_F(KnobExperimentTest, AKnobThatCannotBeAppliedIsLeftUntested) {
  KnobExperiment experiment = plan(3);
  // The tree refuses the write: the file is a directory now.
  std::filesystem::remove(tree_.path() + "/sys/block/nvme0n1/queue/nomerges");
  tree_.mkdir("sys/block/nvme0n1/queue/nomerges");
  TreeBench bench(root_);
  std::ostringstream progress;
  ASSERT_TRUE(run_knob_rounds(experiment, bench, root_, records(), progress));
  const Json report = knob_experiment_json(experiment, false);
  EXPECT_EQ(report.at("tested"), 1);
  bool untested = false;
  for (const Json& knob : report.at("knobs")) {
    if (knob.at("label") != "nvme0n1 nomerges") continue;
    untested = knob.at("status") == "not tested" &&
               knob.at("why").get<std::string>().find("could not apply it: ") == 0;
  }
  EXPECT_TRUE(untested) << report.dump(2);
}

}  // namespace
}  // namespace kdrift
