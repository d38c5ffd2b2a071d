// JobResult::facts(): what rules and reports ask of a job, from its typed identity, never from its
// name; for an imported job, from the engine and rw it records.

#include <gtest/gtest.h>

#include "model/job_result.h"

namespace kdrift {
namespace {

JobResult kdrift_job(std::string_view engine, Pattern rw, uint32_t depth) {
  ProbeJob job;
  job.workload = "w";
  job.engine = *EngineMode::parse(engine);
  job.rw = rw;
  job.iodepth = depth;
  return JobResult(job);
}

TEST(JobFacts, PolledFromTheEngineMode) {
  EXPECT_TRUE(kdrift_job("io_uring+iopoll", Pattern::kRandRead, 1).facts().polled);
  EXPECT_TRUE(kdrift_job("pvsync2+hipri", Pattern::kRandRead, 1).facts().polled);
  EXPECT_FALSE(kdrift_job("io_uring+sqpoll", Pattern::kRandRead, 1).facts().polled);
  EXPECT_FALSE(kdrift_job("libaio", Pattern::kRandRead, 1).facts().polled);
}

TEST(JobFacts, PatternFactsFromThePattern) {
  const JobFacts write = kdrift_job("io_uring", Pattern::kWrite, 1).facts();
  EXPECT_TRUE(write.writes);
  EXPECT_TRUE(write.sequential);
  EXPECT_FALSE(write.mixed);
  const JobFacts random_write = kdrift_job("io_uring", Pattern::kRandWrite, 1).facts();
  EXPECT_TRUE(random_write.writes);
  EXPECT_FALSE(random_write.sequential);
  EXPECT_TRUE(kdrift_job("io_uring", Pattern::kRead, 1).facts().sequential);
  EXPECT_FALSE(kdrift_job("io_uring", Pattern::kRead, 1).facts().writes);
  // A mixed job is reported per direction and, as ranking has always weighed it, not as writes.
  const JobFacts mixed = kdrift_job("io_uring", Pattern::kRandRw, 1).facts();
  EXPECT_TRUE(mixed.mixed);
  EXPECT_FALSE(mixed.writes);
  EXPECT_FALSE(mixed.sequential);
}

TEST(JobFacts, DepthIsTheEffectiveOneAndVariantTheJobs) {
  EXPECT_EQ(kdrift_job("psync", Pattern::kRead, 32).facts().iodepth, 1);
  JobResult spinning = kdrift_job("libaio", Pattern::kRandRead, 16);
  spinning.job->batch_complete_min = 4;
  spinning.job->completion_wait = CompletionWait::kSpin;
  EXPECT_EQ(spinning.facts().iodepth, 16);
  EXPECT_EQ(spinning.facts().variant, " window4 spin");
  EXPECT_EQ(kdrift_job("libaio", Pattern::kRandRead, 16).facts().variant, "");
}

// The name is the diff's key, not a source of facts: text that looks like a mode, a pattern or a
// depth in it changes nothing.
TEST(JobFacts, NeverReadFromTheName) {
  JobResult job = kdrift_job("libaio", Pattern::kRandRead, 4);
  job.name = "io_uring+iopoll pvsync2+hipri write randrw 4k qd64 window8 spin";
  const JobFacts facts = job.facts();
  EXPECT_FALSE(facts.polled);
  EXPECT_FALSE(facts.writes);
  EXPECT_FALSE(facts.sequential);
  EXPECT_FALSE(facts.mixed);
  EXPECT_EQ(facts.iodepth, 4);
  EXPECT_EQ(facts.variant, "");
}

// fio's jobs, imported, are not kdrift's: their engine and rw keep the meaning readers have
// always given them, whatever the job was named.
TEST(JobFacts, ImportedJobsFromTheirEngineAndPattern) {
  const auto imported = [](const Json& entry) {
    const auto result = JobResult::from_json(entry);
    EXPECT_TRUE(result.ok());
    EXPECT_FALSE(result->job.has_value());
    return result->facts();
  };
  const JobFacts polled =
      imported({{"name", "plain write qd8 x"}, {"engine", "io_uring+iopoll"}, {"rw", "randread"}});
  EXPECT_TRUE(polled.polled);
  EXPECT_FALSE(polled.writes);
  EXPECT_EQ(polled.variant, "");
  EXPECT_FALSE(polled.iodepth.has_value());
  const JobFacts readwrite =
      imported({{"name", "iopoll"}, {"engine", "sync"}, {"rw", "readwrite"}, {"iodepth", 8}});
  EXPECT_FALSE(readwrite.polled);
  EXPECT_TRUE(readwrite.writes);
  EXPECT_FALSE(readwrite.mixed);
  EXPECT_EQ(readwrite.iodepth, 8);
  const JobFacts rw = imported({{"name", "j"}, {"engine", "pvsync2+hipri"}, {"rw", "rw"}});
  EXPECT_TRUE(rw.polled);
  EXPECT_TRUE(rw.mixed);
  EXPECT_FALSE(rw.writes);
  EXPECT_TRUE(imported({{"name", "j"}, {"rw", "read"}}).sequential);
}

}  // namespace
}  // namespace kdrift
