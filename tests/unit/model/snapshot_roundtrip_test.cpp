// The snapshot schema's one definition: every probe job of every committed snapshot, and the jobs
// import-fio makes of the committed fio outputs, read into a JobResult and written back give the
// same JSON, byte for byte.

#include <gtest/gtest.h>

#include <filesystem>

#include "iobench/fio_import.h"
#include "model/job_result.h"
#include "snapshot/snapshot.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

std::vector<std::string> fixture_files(const std::string& folder, std::string_view suffix) {
  std::vector<std::string> paths;
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::source_dir() + "/tests/fixtures/" + folder)) {
    if (entry.path().string().ends_with(suffix)) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Returns how many jobs went round.
size_t expect_round_trip(const Json& probe, const std::string& where) {
  const auto jobs = probe.find("jobs");
  if (jobs == probe.end() || !jobs->is_array()) return 0;
  for (const Json& entry : *jobs) {
    const auto result = JobResult::from_json(entry);
    if (!result) {
      ADD_FAILURE() << where << ": " << result.error().describe();
      continue;
    }
    const Json back = result->to_json();
    EXPECT_EQ(back, entry) << where << ": " << entry.value("name", "?");
    EXPECT_EQ(back.dump(), entry.dump()) << where << ": " << entry.value("name", "?");
  }
  return jobs->size();
}

TEST(SnapshotRoundTrip, EveryFixtureSnapshotJobComesBackUnchanged) {
  const auto paths = fixture_files("snapshots", ".json.gz");
  ASSERT_FALSE(paths.empty());
  size_t jobs = 0;
  size_t typed = 0;
  for (const auto& path : paths) {
    auto snapshot = read_snapshot_file(path);
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().describe();
    ASSERT_TRUE(snapshot->contains("probe")) << path;
    jobs += expect_round_trip((*snapshot)["probe"], path);
    for (const Json& entry : (*snapshot)["probe"]["jobs"]) {
      const auto result = JobResult::from_json(entry);
      // The figures readers decide on are typed, not left verbatim.
      if (result && result->job && result->status_or_ok() == "ok") {
        ++typed;
        EXPECT_EQ(result->job->name(), result->name) << path;
        ASSERT_NE(result->main_direction(), nullptr) << path << ": " << result->name;
        EXPECT_TRUE(result->main_direction()->iops_per_second.has_value());
        EXPECT_TRUE(result->main_direction()->lat.has_value());
        EXPECT_FALSE(result->verbatim.contains("read"));
      }
    }
  }
  EXPECT_GE(jobs, 7 * 6u);
  EXPECT_GT(typed, 0u);
}

TEST(SnapshotRoundTrip, ImportedFioJobsComeBackUnchanged) {
  const auto paths = fixture_files("fio", ".json");
  ASSERT_FALSE(paths.empty());
  for (const auto& path : paths) {
    auto section = import_fio(testing::read_bytes(path), path);
    ASSERT_TRUE(section.ok()) << section.error().describe();
    EXPECT_GT(expect_round_trip(*section, path), 0u);
    // Written and read back as a snapshot file would be: numbers parsed, not built.
    EXPECT_GT(expect_round_trip(Json::parse(section->dump()), path), 0u);
  }
}

TEST(SnapshotRoundTrip, MembersOfAnotherKindStayVerbatim) {
  const Json entry = {{"name", "hand edited"},
                      {"status", "ok"},
                      {"elapsed_s", "six"},
                      {"read",
                       {{"ios", -3},
                        {"iops", 12.5},
                        {"iops_per_second", {{"min", 1.5}, {"samples", {1, "two"}}}},
                        {"lat_ns", {{"percentile", {{"50.000000", "fast"}}}}}}}};
  const auto result = JobResult::from_json(entry);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->job.has_value());
  EXPECT_FALSE(result->elapsed_s.has_value());
  ASSERT_TRUE(result->read.has_value());
  EXPECT_FALSE(result->read->ios.has_value());
  EXPECT_EQ(result->read->iops, 12.5);
  // 1.5 is no count: the samples are read as they are, and "two" is no number at all.
  EXPECT_FALSE(result->read->iops_per_second->whole_counts);
  EXPECT_EQ(result->read->iops_per_second->min, 1.5);
  EXPECT_FALSE(result->read->iops_per_second->samples.has_value());
  EXPECT_FALSE(result->read->lat->percentile("50.000000").has_value());
  EXPECT_EQ(result->to_json(), entry);
  EXPECT_FALSE(JobResult::from_json(Json::array()).ok());
}

TEST(JobResult, ABuiltResultWritesWhatTheRunnerWrites) {
  ProbeJob job;
  job.workload = "randread";
  job.iodepth = 16;
  job.ramp = std::chrono::milliseconds(500);
  job.runtime = std::chrono::seconds(6);
  JobResult result(job);
  result.status = "ok";
  result.elapsed_s = 6.0;
  DirectionResult read;
  read.ios = 600;
  read.iops = 100.0;
  read.iops_per_second = PerSecondIops{};
  read.iops_per_second->min = 1;
  read.iops_per_second->max = 3;
  read.iops_per_second->median = 2.0;
  read.iops_per_second->samples = std::vector<double>{1, 2, 3};
  result.read = read;
  const Json out = result.to_json();
  EXPECT_EQ(out["name"], "io_uring randread 4k qd16");
  EXPECT_EQ(out["ramp_s"].dump(), "0.5");
  EXPECT_EQ(out["read"]["iops_per_second"].dump(),
            R"({"max":3,"median":2.0,"min":1,"samples":[1,2,3]})");
  EXPECT_EQ(result.main_direction(), &*result.read);
  EXPECT_EQ(result.header_json(), Json({{"name", "io_uring randread 4k qd16"},
                                        {"engine", "io_uring"},
                                        {"rw", "randread"},
                                        {"bs", 4096},
                                        {"iodepth", 16}}));
}

TEST(JobResult, TheDirectionWithMoreIosIsTheMainOne) {
  JobResult result;
  EXPECT_EQ(result.main_direction(), nullptr);
  result.read = DirectionResult{};
  result.read->ios = 10;
  result.write = DirectionResult{};
  result.write->ios = 30;
  EXPECT_EQ(result.main_direction(), &*result.write);
  result.read->ios = 30;
  EXPECT_EQ(result.main_direction(), &*result.read);
}

}  // namespace
}  // namespace kdrift
