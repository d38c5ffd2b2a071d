#include "bisect/knobs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "diff/statistics.h"

namespace kdrift {
namespace {

// A snapshot with what the block and cpu collectors record for these knobs.
Json snapshot(const std::string& scheduler, int read_ahead, int nomerges,
              const std::string& governor) {
  return Json::parse(R"({
    "block": {"devices": {
      "nvme0n1": {
        "scheduler": {"active": ")" +
                     scheduler + R"(", "available": ["none", "mq-deadline"]},
        "queue": {"scheduler": "[)" +
                     scheduler + R"(] other", "read_ahead_kb": )" + std::to_string(read_ahead) +
                     R"(, "nomerges": )" + std::to_string(nomerges) +
                     R"(, "wbt_lat_usec": 2000, "rq_affinity": 1, "nr_requests": 1023,
                  "rotational": 0}
      },
      "zram0": {"queue": {"read_ahead_kb": 128},
                "unavailable": {"scheduler": "no elevator"}}
    }},
    "cpu": {"cpufreq": {"policies": [
      {"policy": 0, "scaling_governor": ")" +
                     governor + R"("},
      {"policy": 1, "scaling_governor": "performance"}
    ]}}
  })");
}

TEST(DifferingKnobs, OnlyChangedValuesInTheFormTheFileTakes) {
  const Json good = snapshot("none", 128, 0, "performance");
  const Json bad = snapshot("mq-deadline", 4096, 2, "powersave");
  const auto knobs = differing_knobs(good, bad);
  ASSERT_EQ(knobs.size(), 4u);
  EXPECT_EQ(knobs[0].path, "/sys/block/nvme0n1/queue/scheduler");
  EXPECT_EQ(knobs[0].good, "none");  // the active name, not the bracketed list
  EXPECT_EQ(knobs[0].bad, "mq-deadline");
  EXPECT_EQ(knobs[0].label, "nvme0n1 scheduler");
  EXPECT_EQ(knobs[0].device, "nvme0n1");
  EXPECT_EQ(knobs[1].path, "/sys/block/nvme0n1/queue/nomerges");
  EXPECT_EQ(knobs[1].bad, "2");
  EXPECT_EQ(knobs[2].path, "/sys/block/nvme0n1/queue/read_ahead_kb");
  EXPECT_EQ(knobs[2].good, "128");
  EXPECT_EQ(knobs[2].bad, "4096");
  EXPECT_EQ(knobs[3].path, "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
  EXPECT_EQ(knobs[3].good, "performance");
  EXPECT_EQ(knobs[3].bad, "powersave");
  EXPECT_EQ(knobs[3].device, "");
}

TEST(DifferingKnobs, SameSnapshotsHaveNone) {
  const Json good = snapshot("none", 128, 0, "performance");
  EXPECT_TRUE(differing_knobs(good, good).empty());
}

TEST(DifferingKnobs, DevicesAndPoliciesOnOneSideOnlyAreLeftOut) {
  Json good = snapshot("none", 128, 0, "performance");
  Json bad = snapshot("none", 128, 0, "performance");
  bad["block"]["devices"]["sdb"] = {{"queue", {{"read_ahead_kb", 8192}}}};
  good["block"]["devices"]["sdc"] = {{"queue", {{"read_ahead_kb", 128}}}};
  bad["block"]["devices"]["zram0"]["queue"]["read_ahead_kb"] = 4;
  good["cpu"]["cpufreq"]["policies"][1]["policy"] = 7;
  bad["cpu"]["cpufreq"]["policies"][1]["scaling_governor"] = "schedutil";
  const auto knobs = differing_knobs(good, bad);
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_EQ(knobs[0].label, "zram0 read_ahead_kb");
}

TEST(DifferingKnobs, AValueOneSideCouldNotReadIsNoKnob) {
  Json good = snapshot("none", 128, 0, "performance");
  Json bad = snapshot("mq-deadline", 128, 0, "performance");
  bad["block"]["devices"]["nvme0n1"].erase("scheduler");
  bad["block"]["devices"]["nvme0n1"]["queue"]["read_ahead_kb"] = Json();
  EXPECT_TRUE(differing_knobs(good, bad).empty());
  // A snapshot without the sections is no error either.
  EXPECT_TRUE(differing_knobs(Json::object(), bad).empty());
  EXPECT_TRUE(differing_knobs(good, Json::parse(R"({"block": [], "cpu": 3})")).empty());
}

TEST(UntestedReason, OnlyTheTargetsKnobsAtTheirGoodValue) {
  const RuntimeKnob knob{"/sys/block/sda/queue/nomerges", "0", "2", "sda nomerges", "sda"};
  const RuntimeKnob governor{"/sys/devices/system/cpu/cpufreq/policy0/scaling_governor",
                             "performance", "powersave", "governor", ""};
  EXPECT_EQ(untested_reason(knob, std::string("0"), std::string("sda")), "");
  EXPECT_NE(untested_reason(knob, std::string("0"), std::string("sdb")).find("not the probe's"),
            std::string::npos);
  EXPECT_NE(
      untested_reason(knob, std::string("0"), Result<std::string>(make_error(ENODEV, "tmpfs")))
          .find("no block device"),
      std::string::npos);
  EXPECT_NE(untested_reason(knob, std::string("2"), std::string("sda")).find("already at the bad"),
            std::string::npos);
  EXPECT_NE(untested_reason(knob, std::string("1"), std::string("sda")).find("neither"),
            std::string::npos);
  EXPECT_NE(
      untested_reason(knob, Result<std::string>(make_error(ENOENT, knob.path)), std::string("sda"))
          .find("cannot read"),
      std::string::npos);
  // The governor is the host's, whatever the target.
  EXPECT_EQ(untested_reason(governor, std::string("performance"), std::string("sdb")), "");
}

// A stranger's bad snapshot chooses what is written: only the file's own grammar gets through.
TEST(UntestedReason, AValueNotOfTheFilesFormIsNeverWritten) {
  const auto reason = [](const std::string& path, const std::string& bad) {
    const RuntimeKnob knob{path, "0", bad, "knob", ""};
    return untested_reason(knob, std::string("0"), std::string("sda"));
  };
  const std::string read_ahead = "/sys/block/sda/queue/read_ahead_kb";
  const std::string scheduler = "/sys/block/sda/queue/scheduler";
  EXPECT_EQ(reason(read_ahead, "4096"), "");
  EXPECT_EQ(reason(scheduler, "mq-deadline"), "");
  EXPECT_EQ(
      reason(read_ahead, "4096\n0"),
      "the bad snapshot's value \"4096\\x0a0\" is not a decimal number, so it is not written");
  EXPECT_NE(reason(read_ahead, "-1").find("not a decimal number"), std::string::npos);
  EXPECT_NE(reason(read_ahead, std::string(21, '9')).find("not a decimal number"),
            std::string::npos);
  EXPECT_NE(reason(read_ahead, "").find("not a decimal number"), std::string::npos);
  EXPECT_NE(reason(scheduler, "none kyber").find("not a scheduler or governor name"),
            std::string::npos);
  EXPECT_NE(reason(scheduler, "\x1b]0;x\a").find("not a scheduler or governor name"),
            std::string::npos);
  EXPECT_NE(reason(scheduler, std::string(33, 'a')).find("not a scheduler"), std::string::npos);
  EXPECT_NE(reason("/sys/devices/system/cpu/cpufreq/policy0/scaling_governor", "../x")
                .find("not a scheduler or governor name"),
            std::string::npos);
}

TEST(KnobEffect, DirectionFollowsTheStatistic) {
  const std::vector<double> baseline{100, 101, 99, 100.5, 99.5, 100.2};
  const std::vector<double> lower{80, 81, 79, 80.5, 79.5, 80.2};
  const KnobEffect iops = knob_effect(baseline, lower, 0.01, /*higher_is_better=*/true);
  EXPECT_EQ(iops.direction, KnobDirection::kTowardBad);
  EXPECT_NEAR(iops.ratio, 0.8, 0.005);
  EXPECT_LE(iops.p, 0.01);
  const KnobEffect latency = knob_effect(baseline, lower, 0.01, /*higher_is_better=*/false);
  EXPECT_EQ(latency.direction, KnobDirection::kTowardGood);
  EXPECT_EQ(std::string(direction_name(latency.direction)), "toward good");
}

TEST(KnobEffect, OverlappingSamplesAreNoChange) {
  const std::vector<double> baseline{100, 101, 99, 100.5, 99.5, 100.2};
  const std::vector<double> same{100.1, 99.2, 100.7, 99.9, 100.4, 101.2};
  const KnobEffect effect = knob_effect(baseline, same, 0.01, true);
  EXPECT_EQ(effect.direction, KnobDirection::kNoChange);
  EXPECT_GT(effect.p, 0.01);
}

TEST(KnobEffect, TooFewRunsCannotReachABonferroniAlpha) {
  // Five runs a side reach p = 2 / C(10, 5) = 0.0079 at best: enough for one knob at 0.01,
  // not for three (0.0033), which need six.
  EXPECT_EQ(runs_to_resolve(0.01), 5);
  EXPECT_EQ(runs_to_resolve(0.01 / 3), 6);
  const std::vector<double> baseline{100, 101, 99, 100.5, 99.5};
  const std::vector<double> far{10, 11, 9, 10.5, 9.5};
  EXPECT_EQ(knob_effect(baseline, far, 0.01 / 3, true).direction, KnobDirection::kNoChange);
  EXPECT_EQ(knob_effect(baseline, far, 0.01, true).direction, KnobDirection::kTowardBad);
  EXPECT_TRUE(std::isnan(knob_effect({0, 0}, {1, 1}, 0.01, true).ratio));
}

}  // namespace
}  // namespace kdrift
