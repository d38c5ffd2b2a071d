#include "model/probe_job.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

ProbeJob job_of(std::string_view engine, Pattern rw, uint32_t depth) {
  ProbeJob job;
  job.workload = "w";
  job.engine = *EngineMode::parse(engine);
  job.rw = rw;
  job.iodepth = depth;
  return job;
}

TEST(ProbeJob, NameSaysEngineModePatternSizeDepthAndVariant) {
  EXPECT_EQ(job_of("io_uring+iopoll", Pattern::kRandWrite, 16).name(),
            "io_uring+iopoll randwrite 4k qd16");
  ProbeJob mixed = job_of("libaio", Pattern::kRandRw, 4);
  mixed.rwmixread = 70;
  mixed.block_size = 65536;
  mixed.batch_complete_min = 4;
  mixed.completion_wait = CompletionWait::kSpin;
  EXPECT_EQ(mixed.name(), "libaio randrw70 64k qd4 window4 spin");
  EXPECT_EQ(mixed.variant(), " window4 spin");
  // The synchronous engines have one I/O in flight and never spin.
  ProbeJob sync = job_of("psync", Pattern::kRead, 32);
  sync.completion_wait = CompletionWait::kSpin;
  EXPECT_EQ(sync.name(), "psync read 4k qd1");
}

TEST(ProbeJob, RandrwReadsAndWrites) {
  const ProbeJob mixed = job_of("io_uring", Pattern::kRandRw, 1);
  EXPECT_TRUE(mixed.reads());
  EXPECT_TRUE(mixed.writes());
  EXPECT_FALSE(job_of("io_uring", Pattern::kRandRead, 1).writes());
  EXPECT_TRUE(job_of("io_uring", Pattern::kWrite, 1).writes());
  EXPECT_FALSE(job_of("io_uring", Pattern::kWrite, 1).reads());
}

TEST(ProbeJob, JsonRoundTrip) {
  ProbeJob job = job_of("io_uring+sqpoll", Pattern::kRandRw, 8);
  job.rwmixread = 30;
  job.batch_submit = 0;
  job.batch_complete_min = 2;
  job.batch_complete_max = 0;
  job.ramp = std::chrono::milliseconds(250);
  job.runtime = std::chrono::seconds(3);
  const Json json = job.to_json();
  EXPECT_EQ(json["rwmixread"], 30);
  EXPECT_EQ(json["completion_wait"], "sleep");
  const auto back = ProbeJob::from_json(json);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->to_json(), json);
  EXPECT_EQ(back->name(), job.name());
}

TEST(ProbeJob, LikeFioIsAVariantAndRoundTripsOnlyWhenSet) {
  ProbeJob job = job_of("libaio", Pattern::kRandWrite, 16);
  EXPECT_FALSE(job.to_json().contains("like_fio"));  // older snapshots stay byte-identical
  job.like_fio = true;
  EXPECT_EQ(job.name(), "libaio randwrite 4k qd16 like-fio");
  EXPECT_EQ(job.variant(), " like-fio");
  const auto back = ProbeJob::from_json(job.to_json());
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(back->like_fio);
  EXPECT_EQ(back->to_json(), job.to_json());
}

// The shape of a job before completion_wait existed (kdrift before fio's queue discipline): such
// jobs looked for completions before sleeping.
TEST(ProbeJob, OlderJobsWithoutCompletionWaitSpun) {
  Json old = job_of("libaio", Pattern::kRandRead, 16).to_json();
  old.erase("completion_wait");
  old["batch"]["complete_max"] = 0;
  const auto job = ProbeJob::from_json(old);
  ASSERT_TRUE(job.ok()) << job.error().describe();
  EXPECT_EQ(job->completion_wait, CompletionWait::kSpin);
  EXPECT_EQ(job->batch_complete_max, 0u);
}

TEST(ProbeJob, FromJsonNamesWhatIsWrong) {
  const Json good = job_of("io_uring", Pattern::kRead, 1).to_json();
  for (const auto& [key, value, named] : {std::tuple{"engine", Json("sync"), "unknown engine"},
                                          {"rw", Json("rw"), "\"rw\""},
                                          {"bs", Json(-1), "\"bs\""},
                                          {"iodepth", Json(1.5), "\"iodepth\""},
                                          {"ramp_s", Json("soon"), "\"ramp_s\""},
                                          {"completion_wait", Json("nap"), "sleep or spin"},
                                          {"like_fio", Json("yes"), "true or false"},
                                          {"batch", Json({{"submit", 1}}), "batch.complete_min"}}) {
    Json bad = good;
    bad[key] = value;
    const auto job = ProbeJob::from_json(bad);
    ASSERT_FALSE(job.ok()) << key;
    EXPECT_NE(job.error().describe().find(named), std::string::npos) << job.error().describe();
  }
  Json imported = good;
  imported.erase("runtime_s");  // fio's jobs, imported, have no ramp or runtime
  EXPECT_FALSE(ProbeJob::from_json(imported).ok());
  EXPECT_FALSE(ProbeJob::from_json(Json("io_uring read 4k qd1")).ok());
}

}  // namespace
}  // namespace kdrift
