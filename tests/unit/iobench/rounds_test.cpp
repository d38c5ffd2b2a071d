#include "iobench/rounds.h"

#include <gtest/gtest.h>

#include <vector>

namespace kdrift {
namespace {

JobResult round_of(double iops, uint64_t p99_ns) {
  ProbeJob job;
  job.workload = "w";
  job.rw = Pattern::kRandRead;
  JobResult result(job);
  result.status = "ok";
  result.elapsed_s = 1.0;
  DirectionResult read;
  read.ios = static_cast<uint64_t>(iops);
  read.iops = iops;
  read.bytes = static_cast<uint64_t>(iops) * 4096;
  LatencySummary lat;
  lat.mean = 1000;
  lat.min = 10;
  lat.percentiles = {{"50.000000", 900}, {"90.000000", 950}, {"99.000000", p99_ns}};
  read.lat = lat;
  read.clat = lat;
  result.read = read;
  result.verbatim["cpu"] = {{"user_s", iops / 1e6}};
  return result;
}

TEST(MedianRound, TheMedianRoundStandsForTheJobWithEveryRoundSummarised) {
  const JobResult job = median_round({round_of(300, 3), round_of(100, 1), round_of(200, 2)});
  EXPECT_EQ(job.round, 3U);
  EXPECT_EQ(job.read->iops, 200);
  EXPECT_EQ(job.verbatim["cpu"]["user_s"], 200 / 1e6);  // the whole round, not a blend
  ASSERT_TRUE(job.rounds);
  ASSERT_EQ(job.rounds->size(), 3U);
  const RoundResult& first = (*job.rounds)[0];
  EXPECT_EQ(first.round, 1U);
  EXPECT_EQ(first.main_direction()->iops, 300);
  // A round keeps the count, IOPS and total latency's mean and tracked percentiles only.
  EXPECT_EQ(first.read->lat->percentile("99.000000"), 3U);
  EXPECT_FALSE(first.read->lat->percentile("90.000000"));
  EXPECT_FALSE(first.read->clat);
  EXPECT_FALSE(first.read->bytes);
  EXPECT_FALSE(first.write);
}

TEST(MedianRound, AnEvenCountTakesTheLowerMiddle) {
  const JobResult job =
      median_round({round_of(400, 4), round_of(100, 1), round_of(300, 3), round_of(200, 2)});
  EXPECT_EQ(job.read->iops, 200);
  EXPECT_EQ(job.round, 4U);
}

TEST(MedianRound, AFailedRoundIsTheEntrySoTheFailureIsNotHidden) {
  JobResult failed = round_of(50, 1);
  failed.status = "failed";
  failed.verbatim["failure"] = {{"errno", 5}};
  const JobResult job = median_round({round_of(300, 3), failed, round_of(200, 2)});
  EXPECT_EQ(job.status, "failed");
  EXPECT_EQ(job.round, 2U);
  EXPECT_EQ((*job.rounds)[1].verbatim["status"], "failed");
}

TEST(MedianRound, OneRoundOrASkippedJobComesBackAsItWas) {
  const JobResult one = median_round({round_of(100, 1)});
  EXPECT_FALSE(one.round);
  EXPECT_FALSE(one.rounds);
  EXPECT_EQ(one.to_json(), round_of(100, 1).to_json());
  JobResult skipped(ProbeJob{});
  skipped.status = "skipped";
  skipped.reason = "writes refused";
  EXPECT_FALSE(median_round({skipped}).rounds);
  EXPECT_EQ(median_round({}).to_json(), JobResult{}.to_json());
}

TEST(MedianRound, RoundsSurviveTheSnapshotRoundTrip) {
  const JobResult job = median_round({round_of(300, 3), round_of(100, 1), round_of(200, 2)});
  const Json json = job.to_json();
  EXPECT_EQ(json["round"], 3);
  EXPECT_EQ(json["rounds"][1]["read"]["iops"], 100.0);
  const auto back = JobResult::from_json(json);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->to_json(), json);
  ASSERT_TRUE(back->rounds);
  EXPECT_EQ((*back->rounds)[2].main_direction()->lat->percentile("99.000000"), 2U);
}

}  // namespace
}  // namespace kdrift
