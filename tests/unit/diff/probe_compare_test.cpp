#include "diff/probe_compare.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

Json job(const std::string& name, std::vector<double> samples, const std::string& status = "ok") {
  double sum = 0;
  for (double sample : samples)
    sum += sample;
  return {{"name", name},
          {"engine", "io_uring"},
          {"rw", "randread"},
          {"iodepth", 16},
          {"status", status},
          {"read",
           {{"ios", sum},
            {"iops", sum / static_cast<double>(samples.size())},
            {"iops_per_second", {{"samples", samples}}},
            {"lat_ns", {{"percentile", {{"50.000000", 80000}, {"99.000000", 200000}}}}}}}};
}

Json probe(std::vector<Json> jobs) {
  return {{"jobs", std::move(jobs)}};
}

const Json& verdict_of(const Json& compared, std::size_t index = 0) {
  return compared["jobs"][index]["verdict"];
}

const std::vector<double> kSteady = {100, 102, 98, 101, 99, 100, 103, 97};

// A job run in rounds, each round's per-second IOPS given; the entry is the first round, as the
// model does not care which round stands for the job.
Json rounds_job(const std::string& name, const std::vector<std::vector<double>>& rounds) {
  Json entry = job(name, rounds.front());
  entry["read"]["lat_ns"]["per_second"]["99.000000"] =
      std::vector<uint64_t>(rounds.front().size(), 200000);
  entry["round"] = 1;
  entry["rounds"] = Json::array();
  for (size_t index = 0; index < rounds.size(); ++index) {
    const Json one = job(name, rounds[index]);
    entry["rounds"].push_back({{"round", index + 1},
                               {"elapsed_s", static_cast<double>(rounds[index].size())},
                               {"read",
                                {{"ios", one["read"]["ios"]},
                                 {"iops", one["read"]["iops"]},
                                 {"iops_per_second", one["read"]["iops_per_second"]},
                                 {"lat_ns", one["read"]["lat_ns"]}}}});
  }
  return entry;
}

std::vector<double> shifted(const std::vector<double>& samples, double factor) {
  std::vector<double> out;
  for (const double sample : samples)
    out.push_back(sample * factor);
  return out;
}

// Each compared job carries its facts, typed, beside its entry: B's, or A's for a job only in A.
// They come from the job's identity, whatever its name says.
TEST(ProbeCompare, EachJobCarriesItsFacts) {
  ProbeJob polled;
  polled.workload = "w";
  polled.engine = *EngineMode::parse("io_uring+iopoll");
  polled.iodepth = 16;
  Json typed = job("", kSteady);
  typed.update(polled.to_json());
  typed["name"] = "libaio write 4k qd4 spin";
  Json written = job("only in b", kSteady);
  written["rw"] = "randwrite";
  const Json a = probe({typed, job("only in a", kSteady)});
  const Json b = probe({typed, written});
  for (const ProbeComparison& compared :
       {compare_probes(&a, &b), compare_probe_sets({&a, &a}, {&b, &b})}) {
    ASSERT_EQ(compared.jobs.size(), 3U);
    EXPECT_EQ(compared.jobs[0].entry["name"], "libaio write 4k qd4 spin");
    EXPECT_TRUE(compared.jobs[0].job.polled);
    EXPECT_FALSE(compared.jobs[0].job.writes);
    EXPECT_EQ(compared.jobs[0].job.iodepth, 16);
    EXPECT_EQ(compared.jobs[0].job.variant, "");
    EXPECT_TRUE(compared.jobs[1].job.writes);
    EXPECT_EQ(compared.jobs[2].entry["name"], "only in a");
    EXPECT_FALSE(compared.jobs[2].job.polled);
    EXPECT_EQ(compared.to_json()["jobs"].size(), 3U);
  }
}

TEST(ProbeCompare, ClearDropIsARegression) {
  const Json a = probe({job("j", kSteady)});
  const Json b = probe({job("j", {70, 71, 69, 72, 70, 68, 71, 70})});
  const Json compared = compare_probes(&a, &b).to_json();
  EXPECT_EQ(verdict_of(compared), "regression");
  const Json& result = compared["jobs"][0];
  EXPECT_NEAR(result["iops_ratio"].get<double>(), 0.70, 0.02);
  EXPECT_LT(result["iops_ci95"][1].get<double>(), 1.0);
  EXPECT_LT(result["p_value"].get<double>(), 0.01);
  EXPECT_EQ(result["latency"]["99.000000"]["ratio"], 1.0);
}

TEST(ProbeCompare, ClearGainIsAnImprovement) {
  const Json a = probe({job("j", kSteady)});
  const Json b = probe({job("j", {130, 131, 129, 132, 130, 128, 131, 130})});
  EXPECT_EQ(verdict_of(compare_probes(&a, &b).to_json()), "improvement");
}

TEST(ProbeCompare, ChangeInsideTheNoiseIsNotARegression) {
  const Json a = probe({job("j", {100, 80, 120, 90, 110, 95, 105, 85})});
  const Json b = probe({job("j", {97, 78, 118, 88, 108, 92, 101, 83})});
  EXPECT_EQ(verdict_of(compare_probes(&a, &b).to_json()), "inconclusive");
}

TEST(ProbeCompare, SignificantInsideTheRunsButWithinRunToRunNoiseIsNoVerdict) {
  // Two TCG guest runs of one scenario (6 per-second samples each, spread 14 % and 1 %): the
  // ranks separate completely (p = 0.002), but a 23 % drop is inside what the runs' own
  // spread says another run could show.
  const Json a = probe({job("j", {8301, 9760, 7182, 7469, 8516, 6582})});
  const Json b = probe({job("j", {6164, 6117, 6013, 6203, 6080, 6098})});
  const Json compared = compare_probes(&a, &b).to_json();
  const Json& result = compared["jobs"][0];
  EXPECT_LT(result["p_value"].get<double>(), 0.01);
  EXPECT_EQ(verdict_of(compared), "inconclusive");
  EXPECT_NE(result["reason"].get<std::string>().find("re-run"), std::string::npos);
  // exp(t(0.995, 10) * sqrt((1.25 * 0.1421)^2 + 0.05^2)): A's per-second spread stands in for
  // its run to run taken 1.25 times (kStandInInflation), B's 1 % is taken as the 5 % run to run
  // that one round a side cannot show (kUnseenRunToRunCv).
  EXPECT_NEAR(result["iops_noise_allowance"][1].get<double>(), 1.7946, 0.001);
  EXPECT_NEAR(result["iops_noise_allowance"][0].get<double>(), 1 / 1.7946, 0.001);
  // The same drop from steady runs is a regression.
  const Json steady_b = probe({job("j", {6164, 6117, 6013, 6203, 6080, 6098})});
  const Json steady_a = probe({job("j", {7885, 7901, 7850, 7920, 7870, 7899})});
  EXPECT_EQ(verdict_of(compare_probes(&steady_a, &steady_b).to_json()), "regression");
}

TEST(ProbeCompare, ASteadyJobInANoisyRunIsHeldToTheRunsSpread) {
  // The CI lab run that called a second boot of one scenario a regression: the iopoll job was
  // steady inside each run (per-second spread ~2 %) and moved x0.71 between the boots, while the
  // runs' other jobs spread 14 %.
  const std::vector<double> noisy_a = {8301, 9760, 7182, 7469, 8516, 6582};
  const std::vector<double> noisy_b = {6900, 8100, 5950, 6250, 7000, 5500};
  const std::vector<double> steady_a = {10000, 10200, 9800, 10100, 9900, 10050};
  const std::vector<double> steady_b = {7100, 7150, 6950, 7050, 7000, 7120};
  const Json a = probe({job("noisy 1", noisy_a), job("noisy 2", noisy_a), job("polled", steady_a)});
  const Json b = probe({job("noisy 1", noisy_b), job("noisy 2", noisy_b), job("polled", steady_b)});
  const Json compared = compare_probes(&a, &b).to_json();
  EXPECT_NEAR(compared["run_spread"]["a"].get<double>(), 0.1421, 0.001);
  EXPECT_GT(compared["run_spread"]["b"].get<double>(), 0.1);
  const Json& polled = compared["jobs"][2];
  EXPECT_LT(polled["p_value"].get<double>(), 0.01);
  EXPECT_EQ(polled["verdict"], "inconclusive") << polled.dump(1);
  EXPECT_GT(polled["iops_noise_allowance"][1].get<double>(), 1 / 0.71);
  EXPECT_NE(polled["reason"].get<std::string>().find("re-run"), std::string::npos);
  // Alone (or among steady jobs) the same drop is a regression: quiet runs keep their power.
  const Json alone_a = probe({job("polled", steady_a)});
  const Json alone_b = probe({job("polled", steady_b)});
  const Json alone = compare_probes(&alone_a, &alone_b).to_json();
  EXPECT_EQ(verdict_of(alone), "regression");
  EXPECT_LT(alone["run_spread"]["a"].get<double>(), 0.03);
}

TEST(ProbeCompare, WithRoundsTheSpreadBetweenRoundsIsTheNoise) {
  // Each round steady inside (per-second spread 2 %), rounds apart by 10-15 %: one round a side
  // would call a 12 % drop; three rounds a side show that rounds alone move that much.
  const Json a =
      probe({rounds_job("j", {kSteady, shifted(kSteady, 1.12), shifted(kSteady, 0.97)})});
  const Json b = probe(
      {rounds_job("j", {shifted(kSteady, 0.88), shifted(kSteady, 1.02), shifted(kSteady, 0.95)})});
  const Json compared = compare_probes(&a, &b).to_json();
  const Json& result = compared["jobs"][0];
  EXPECT_EQ(result["iops_noise_from"], "rounds");
  EXPECT_EQ(result["rounds"], Json({{"a", 3}, {"b", 3}}));
  EXPECT_EQ(result["samples"], Json({{"a", 24}, {"b", 24}}));  // every round's seconds, pooled
  EXPECT_EQ(verdict_of(compared), "inconclusive");
  EXPECT_GT(result["iops_noise_allowance"][1].get<double>(), 1.15);
  // Rounds that agree make the allowance tight: the same rounds a side, one side 20 % lower in
  // all of them, is a regression.
  // At 100k IOPS, so that each second's p99 rests on enough I/Os to be tested.
  const auto fast = shifted(kSteady, 1000);
  const Json steady_a = probe({rounds_job("j", {fast, shifted(fast, 1.01), shifted(fast, 0.99)})});
  const Json steady_b =
      probe({rounds_job("j", {shifted(fast, 0.8), shifted(fast, 0.81), shifted(fast, 0.79)})});
  const Json steady = compare_probes(&steady_a, &steady_b).to_json();
  EXPECT_EQ(verdict_of(steady), "regression");
  EXPECT_LT(steady["jobs"][0]["iops_noise_allowance"][1].get<double>(), 1.1);
  EXPECT_EQ(steady["jobs"][0]["latency"]["99.000000"]["noise_from"], "rounds");
}

TEST(ProbeCompare, AcrossBootsThePerSecondSpreadStaysAFloorUnderTheRounds) {
  // A guest's seconds spread 15 % while its three rounds agree within 1 %: rounds inside one boot
  // do not show how far the next boot lands, and the lab's boots moved as far as the seconds do.
  const std::vector<double> noisy = {100, 130, 75, 110, 90, 125, 80, 100, 95, 105, 70, 120};
  const Json a = probe({rounds_job("j", {noisy, shifted(noisy, 1.01), shifted(noisy, 0.99)})});
  const Json b =
      probe({rounds_job("j", {shifted(noisy, 0.78), shifted(noisy, 0.79), shifted(noisy, 0.77)})});
  const Json across = compare_probes(&a, &b, kDefaultAlpha, Boots::kDifferent).to_json();
  EXPECT_EQ(across["jobs"][0]["iops_noise_from"], "per-second spread") << across.dump(1);
  EXPECT_EQ(verdict_of(across), "inconclusive");
  const Json within = compare_probes(&a, &b, kDefaultAlpha, Boots::kSame).to_json();
  EXPECT_EQ(within["jobs"][0]["iops_noise_from"], "rounds");
  EXPECT_EQ(verdict_of(within), "regression") << within.dump(1);
}

TEST(ProbeCompare, RoundsOnOneSideOnlyKeepThePerSecondEstimate) {
  const Json a = probe({rounds_job("j", {kSteady, kSteady})});
  const Json b = probe({job("j", shifted(kSteady, 0.7))});
  const Json compared = compare_probes(&a, &b).to_json();
  EXPECT_EQ(compared["jobs"][0]["iops_noise_from"], "per-second spread");
  EXPECT_EQ(compared["jobs"][0]["rounds"], Json({{"a", 2}, {"b", 1}}));
  EXPECT_EQ(verdict_of(compared), "regression");
}

// One job's probe section per snapshot, at these IOPS (steady per-second samples around each).
std::vector<Json> boots(const std::vector<double>& levels) {
  std::vector<Json> out;
  for (const double level : levels)
    out.push_back(probe({job("j", shifted(kSteady, level / 100))}));
  return out;
}

std::vector<const Json*> pointers(const std::vector<Json>& probes) {
  std::vector<const Json*> out;
  for (const auto& probe : probes)
    out.push_back(&probe);
  return out;
}

TEST(ProbeCompareSets, SnapshotsAreTheUnitAndTheirSpreadIsTheNoise) {
  // Boot-to-boot drift of ~2 %: a 12 % loss on every boot is a regression.
  const auto a = boots({100, 102, 98});
  const auto b = boots({88, 90, 86});
  const Json compared = compare_probe_sets(pointers(a), pointers(b)).to_json();
  EXPECT_EQ(compared["unit"], "snapshot");
  EXPECT_EQ(compared["snapshots"], Json({{"a", 3}, {"b", 3}}));
  const Json& result = compared["jobs"][0];
  EXPECT_EQ(result["verdict"], "regression") << result.dump(1);
  EXPECT_NEAR(result["iops_ratio"].get<double>(), 0.88, 0.01);
  EXPECT_LT(result["iops_ci95"][1].get<double>(), 1);
  EXPECT_EQ(result["iops_values"]["a"].size(), 3U);
  EXPECT_NEAR(result["a"]["iops"].get<double>(), 100, 0.1);
  // The same means with boots 15 % apart are inside the noise, however steady each boot was.
  const auto noisy_a = boots({100, 118, 85});
  const auto noisy_b = boots({88, 104, 75});
  EXPECT_EQ(verdict_of(compare_probe_sets(pointers(noisy_a), pointers(noisy_b)).to_json()),
            "inconclusive");
}

// Three rounds a snapshot whose medians are these levels, each round ±spread around it.
Json snapshot_in_rounds(double level, double spread) {
  return probe(
      {rounds_job("j", {shifted(kSteady, (level - spread) / 100), shifted(kSteady, level / 100),
                        shifted(kSteady, (level + spread) / 100)})});
}

TEST(ProbeCompareSets, SnapshotsThatAgreeByChanceKeepTheirOwnRunToRunNoise) {
  // Three snapshots a side within 0.3 % of each other, 6 % apart: Welch alone would call it,
  // but each snapshot's own rounds spread 15 %, and a re-run could land anywhere in that.
  std::vector<Json> a;
  std::vector<Json> b;
  for (const double level : {100.0, 100.3, 99.8}) {
    a.push_back(snapshot_in_rounds(level, 15));
    b.push_back(snapshot_in_rounds(level * 0.94, 15));
  }
  const Json result = compare_probe_sets(pointers(a), pointers(b)).to_json()["jobs"][0];
  EXPECT_EQ(result["verdict"], "inconclusive") << result.dump(1);
  EXPECT_GT(result["iops_run_to_run_cv"]["a"].get<double>(), 0.1);
  // Rounds that agree as closely as the snapshots do leave the verdict to the snapshots.
  std::vector<Json> steady_a;
  std::vector<Json> steady_b;
  for (const double level : {100.0, 100.3, 99.8}) {
    steady_a.push_back(snapshot_in_rounds(level, 0.3));
    steady_b.push_back(snapshot_in_rounds(level * 0.94, 0.3));
  }
  EXPECT_EQ(verdict_of(compare_probe_sets(pointers(steady_a), pointers(steady_b)).to_json()),
            "regression");
}

TEST(ProbeCompareSets, OneCandidateAgainstSeveralBaselinesIsAPredictionTest) {
  const auto a = boots({100, 101, 99, 100});
  const auto slow = boots({80});
  const auto usual = boots({99.5});
  EXPECT_EQ(verdict_of(compare_probe_sets(pointers(a), pointers(slow)).to_json()), "regression");
  EXPECT_EQ(verdict_of(compare_probe_sets(pointers(a), pointers(usual)).to_json()), "inconclusive");
  EXPECT_EQ(compare_probe_sets(pointers(a), pointers(slow)).to_json()["jobs"][0]["snapshots"],
            Json({{"a", 4}, {"b", 1}}));
}

TEST(ProbeCompareSets, JobsMissingOrFailedOnSomeSnapshotsAreCounted) {
  std::vector<Json> a = boots({100, 101});
  a.push_back(probe({job("j", kSteady, "failed")}));
  std::vector<Json> b = boots({70, 71});
  b.push_back(probe({job("other", kSteady)}));
  const Json compared = compare_probe_sets(pointers(a), pointers(b)).to_json();
  const Json& result = compared["jobs"][0];
  EXPECT_EQ(result["name"], "j");
  EXPECT_EQ(result["not_run"], Json({{"a", 1}, {"b", 1}}));
  EXPECT_EQ(result["snapshots"], Json({{"a", 2}, {"b", 2}}));
  EXPECT_EQ(compared["jobs"][1]["verdict"], "only-in-b");
  // No probe at all on a snapshot is a snapshot without the job.
  const std::vector<const Json*> with_none = {&a[0], nullptr};
  EXPECT_EQ(compare_probe_sets(with_none, pointers(b)).to_json()["jobs"][0]["not_run"]["a"], 1);
  // One snapshot a side is the per-second comparison.
  EXPECT_EQ(compare_probe_sets({&a[0]}, {&b[0]}).to_json(), compare_probes(&a[0], &b[0]).to_json());
}

TEST(ProbeCompare, SmallButSignificantDriftIsNotWorthAFinding) {
  const Json a = probe({job("j", kSteady)});
  std::vector<double> slightly_lower;
  slightly_lower.reserve(kSteady.size());
  for (double sample : kSteady)
    slightly_lower.push_back(sample * 0.98);
  const Json b = probe({job("j", slightly_lower)});
  EXPECT_EQ(verdict_of(compare_probes(&a, &b).to_json()), "inconclusive");
}

TEST(ProbeCompare, TailLatencyAloneCanRegress) {
  // 100k IOPS: each second's p99 rests on a thousand I/Os.
  Json a = job("j", shifted(kSteady, 1000));
  Json b = job("j", shifted(kSteady, 1000));
  a["read"]["lat_ns"]["per_second"]["99.000000"] = {200, 210, 190, 205, 195, 200, 202, 198};
  b["read"]["lat_ns"]["per_second"]["99.000000"] = {400, 420, 380, 410, 390, 400, 404, 396};
  const Json pa = probe({a});
  const Json pb = probe({b});
  const Json result = compare_probes(&pa, &pb).to_json()["jobs"][0];
  EXPECT_EQ(result["iops_verdict"], "inconclusive");
  EXPECT_EQ(result["latency"]["99.000000"]["verdict"], "regression");
  EXPECT_NEAR(result["latency"]["99.000000"]["ci95"][0].get<double>(), 2.0, 0.1);
  // The verdict's ratio is of the per-second medians; "ratio" stays the whole run's (both
  // fixtures carry the same whole-run p99, so that one is 1).
  EXPECT_NEAR(result["latency"]["99.000000"]["per_second_ratio"].get<double>(), 2.0, 0.01);
  EXPECT_EQ(result["latency"]["99.000000"]["ratio"], 1.0);
  EXPECT_EQ(result["verdict"], "regression");
  EXPECT_FALSE(result["latency"]["50.000000"].contains("verdict")) << "no per-second p50 given";
}

TEST(ProbeCompare, APercentileOfFewIosPerSecondGetsNoVerdict) {
  // 8k IOPS: a second's p99.9 is its 8th slowest I/O; the same tail doubling as above says
  // nothing then, while p50 (4k I/Os beyond it) is still tested.
  const std::vector<double> iops = shifted(kSteady, 80);
  Json a = job("j", iops);
  Json b = job("j", iops);
  const Json tail = {200, 210, 190, 205, 195, 200, 202, 198};
  const Json doubled = {400, 420, 380, 410, 390, 400, 404, 396};
  a["read"]["lat_ns"]["per_second"]["99.900000"] = tail;
  b["read"]["lat_ns"]["per_second"]["99.900000"] = doubled;
  a["read"]["lat_ns"]["per_second"]["50.000000"] = tail;
  b["read"]["lat_ns"]["per_second"]["50.000000"] = doubled;
  a["read"]["lat_ns"]["percentile"]["99.900000"] = 200;
  b["read"]["lat_ns"]["percentile"]["99.900000"] = 400;
  const Json pa = probe({a});
  const Json pb = probe({b});
  const Json result = compare_probes(&pa, &pb).to_json()["jobs"][0];
  const Json& p999 = result["latency"]["99.900000"];
  EXPECT_FALSE(p999.contains("verdict")) << p999.dump();
  EXPECT_NE(p999["reason"].get<std::string>().find("rests on 7 I/Os beyond it"), std::string::npos)
      << p999.dump();
  EXPECT_EQ(p999["ratio"], 2.0) << "the whole run's percentiles are still compared";
  EXPECT_EQ(result["latency"]["50.000000"]["verdict"], "regression");
}

TEST(ProbeCompare, LatencyMovesWithinTheIopsRunToRunNoiseIsNoVerdict) {
  // Two boots of one TCG scenario: IOPS per second spread ~14 %, p50 per second sits in one
  // histogram bucket per run and the second boot's bucket is 7 % higher. The ranks separate
  // raw (p < 0.01), but at a fixed queue depth latency drifts as IOPS does: net of the IOPS
  // change (x0.92) it hardly moved, and the allowance would cover it anyway.
  Json a = job("j", {8301, 9760, 7182, 7469, 8516, 6582});
  Json b = job("j", {7701, 9060, 6682, 6969, 7816, 6182});
  a["read"]["lat_ns"]["per_second"]["50.000000"] = {1990, 2000, 2000, 1990, 2000, 2000};
  b["read"]["lat_ns"]["per_second"]["50.000000"] = {2130, 2140, 2140, 2130, 2140, 2140};
  const Json pa = probe({a});
  const Json pb = probe({b});
  const Json result = compare_probes(&pa, &pb).to_json()["jobs"][0];
  const Json& p50 = result["latency"]["50.000000"];
  EXPECT_NEAR(p50["per_second_ratio"].get<double>(), 1.07, 0.01);
  EXPECT_NEAR(p50["beyond_iops_ratio"].get<double>(), 0.99, 0.02);
  EXPECT_GT(p50["p_value"].get<double>(), 0.01);
  EXPECT_EQ(p50["noise_allowance"], result["iops_noise_allowance"]);
  EXPECT_EQ(p50["verdict"], "inconclusive");
  EXPECT_EQ(result["verdict"], "inconclusive");
}

TEST(ProbeCompare, ALatencyChangeTheIopsChangeExplainsCountsOnce) {
  // A second boot whose whole run went slower (IOPS x0.6, inside the allowance of runs this
  // noisy): by Little's law its p50 rises by about 1/0.6, here a little more, x1.95, beyond the
  // allowance on its own. Net of the IOPS change it moved x1.17: the same drift, counted once.
  const std::vector<double> noisy = {8301, 9760, 7182, 7469, 8516, 6582};
  Json a = job("j", noisy);
  Json b = job("j", shifted(noisy, 0.6));
  a["read"]["lat_ns"]["per_second"]["50.000000"] = {2000, 2000, 1990, 2000, 2010, 2000};
  b["read"]["lat_ns"]["per_second"]["50.000000"] = {3900, 3900, 3880, 3900, 3920, 3900};
  const Json pa = probe({a});
  const Json pb = probe({b});
  const Json result = compare_probes(&pa, &pb).to_json()["jobs"][0];
  EXPECT_EQ(result["iops_verdict"], "inconclusive");
  const Json& p50 = result["latency"]["50.000000"];
  EXPECT_NEAR(p50["per_second_ratio"].get<double>(), 1.95, 0.01);
  EXPECT_NEAR(p50["beyond_iops_ratio"].get<double>(), 1.17, 0.01);
  EXPECT_LT(1.17, p50["noise_allowance"][1].get<double>()) << "net of the IOPS, inside it";
  EXPECT_EQ(p50["verdict"], "inconclusive");
  EXPECT_EQ(result["verdict"], "inconclusive");
}

TEST(ProbeCompare, TooFewSamplesSaySo) {
  const Json a = probe({job("j", {100, 101, 99})});
  const Json b = probe({job("j", {50, 51, 49})});
  const Json compared = compare_probes(&a, &b).to_json();
  EXPECT_EQ(verdict_of(compared), "inconclusive");
  EXPECT_NE(compared["jobs"][0]["reason"].get<std::string>().find("3 and 3"), std::string::npos);
}

TEST(ProbeCompare, JobsOnOneSideOnlyAndFailedJobs) {
  const Json a = probe({job("old", kSteady), job("both", kSteady)});
  const Json b = probe({job("both", kSteady, "failed"), job("new", kSteady)});
  const Json compared = compare_probes(&a, &b).to_json();
  ASSERT_EQ(compared["jobs"].size(), 3U);
  EXPECT_EQ(verdict_of(compared, 0), "inconclusive");
  EXPECT_EQ(verdict_of(compared, 1), "only-in-b");
  EXPECT_EQ(verdict_of(compared, 2), "only-in-a");
}

TEST(ProbeCompare, NoProbeOnASideIsNamed) {
  const Json b = probe({job("j", kSteady)});
  EXPECT_EQ(compare_probes(nullptr, &b).to_json()["unavailable"], "only B has probe results");
  const Json wrong = {{"jobs", "not a list"}};
  EXPECT_TRUE(compare_probes(&wrong, &b).to_json().contains("unavailable"));
}

}  // namespace
}  // namespace kdrift

namespace kdrift {
namespace {

// Four rounds a side of thirty seconds at one level, seconds and rounds spread 0.3 %: the
// interval, run-to-run noise included, lies inside ±5 %, and that is shown, not merely "no
// change found". One round a side could not show it: the run-to-run spread it cannot see is
// taken as at least 5 % (kUnseenRunToRunCv).
TEST(ProbeCompareThreeWay, SteadyRoundsAtOneLevelAreEquivalent) {
  std::vector<std::vector<double>> rounds_a;
  std::vector<std::vector<double>> rounds_b;
  for (int round = 0; round < 4; ++round) {
    std::vector<double> a;
    std::vector<double> b;
    for (int second = 0; second < 30; ++second) {
      a.push_back(100000 * (1 + 0.003 * (((second + round) % 5) - 2)));
      b.push_back(100000 * (1 + 0.003 * (((second + round + 2) % 5) - 2)));
    }
    rounds_a.push_back(a);
    rounds_b.push_back(b);
  }
  const Json pa = probe({rounds_job("j", rounds_a)});
  const Json pb = probe({rounds_job("j", rounds_b)});
  const ProbeComparison compared = compare_probes(&pa, &pb);
  ASSERT_EQ(compared.jobs.size(), 1U);
  EXPECT_EQ(compared.jobs[0].verdict.state, VerdictState::kEquivalent)
      << compared.jobs[0].entry.dump(1);
  EXPECT_EQ(compared.jobs[0].entry["verdict"], "equivalent");
  ASSERT_TRUE(compared.jobs[0].verdict.bounds);
  EXPECT_GE(compared.jobs[0].verdict.bounds->low, 0.95);
  EXPECT_LE(compared.jobs[0].verdict.bounds->high, 1 / 0.95);
  EXPECT_DOUBLE_EQ(compared.jobs[0].verdict.bounds->confidence, 0.99);
  // The first round alone a side: not shown equivalent.
  const Json one_a = probe({job("j", rounds_a.front())});
  const Json one_b = probe({job("j", rounds_b.front())});
  EXPECT_EQ(compare_probes(&one_a, &one_b).jobs[0].verdict.state, VerdictState::kInconclusive);
}

// The case: three boots a side, every B slower than every A (A 168k, 178k, 269k; B held at
// 125k). Three a side at A's spread cannot decide it at 99 %: the verdict is inconclusive, never
// "nothing differs", and says how many snapshots a side would.
TEST(ProbeCompareThreeWay, EveryBSlowerWithTooFewSnapshotsIsInconclusiveWithACount) {
  std::vector<Json> side_a;
  std::vector<Json> side_b;
  for (const double level : {168000.0, 178000.0, 269000.0})
    side_a.push_back(probe({job("j", shifted(kSteady, level / 100))}));
  for (const double level : {125100.0, 124900.0, 125000.0})
    side_b.push_back(probe({job("j", shifted(kSteady, level / 100))}));
  std::vector<const Json*> a;
  std::vector<const Json*> b;
  for (const Json& snapshot : side_a)
    a.push_back(&snapshot);
  for (const Json& snapshot : side_b)
    b.push_back(&snapshot);
  const ProbeComparison compared = compare_probe_sets(a, b);
  ASSERT_EQ(compared.jobs.size(), 1U);
  const Verdict& verdict = compared.jobs[0].verdict;
  const Json& entry = compared.jobs[0].entry;
  EXPECT_LT(entry["iops_ratio"].get<double>(), 0.75);
  EXPECT_EQ(verdict.state, VerdictState::kInconclusive) << entry.dump(1);
  ASSERT_TRUE(verdict.decide);
  EXPECT_EQ(verdict.decide->unit, SampleUnit::kSnapshots);
  EXPECT_EQ(verdict.decide->now, 3U);
  EXPECT_FALSE(verdict.decide->beyond_reach);
  EXPECT_GT(verdict.decide->needed, 3U);
  EXPECT_LE(verdict.decide->needed, 12U);
  // The interval printed is the one decided on, and it holds 1.
  ASSERT_TRUE(verdict.bounds);
  EXPECT_LT(verdict.bounds->low, 1);
  EXPECT_GT(verdict.bounds->high, 1);
}

}  // namespace
}  // namespace kdrift
