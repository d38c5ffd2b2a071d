#include "probe/profile.h"

#include <gtest/gtest.h>

#include <set>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using std::chrono::microseconds;
using std::chrono::seconds;

Profile parse_ok(std::string_view text) {
  auto profile = parse_profile(text, "test", "test.toml");
  EXPECT_TRUE(profile.ok()) << profile.error().describe();
  return profile.ok() ? *profile : Profile{};
}

std::string parse_error(std::string_view text) {
  auto profile = parse_profile(text, "test", "test.toml");
  EXPECT_FALSE(profile.ok());
  return profile.ok() ? "" : profile.error().describe();
}

TEST(Profile, EveryBuiltInProfileParsesWithUniqueJobNames) {
  auto profiles = embedded_profiles();
  ASSERT_TRUE(profiles.ok()) << profiles.error().describe();
  std::set<std::string> names;
  for (const auto& profile : *profiles)
    names.insert(profile.name);
  EXPECT_EQ(names, (std::set<std::string>{"blocksize-sweep", "latency-qd1", "quick", "readahead",
                                          "ydb-randwrite"}));
  for (const auto& profile : *profiles) {
    EXPECT_FALSE(profile.description.empty()) << profile.name;
    EXPECT_FALSE(profile.jobs().empty()) << profile.name;
  }
}

TEST(Profile, QuickFitsTheAuditBudget) {
  auto quick = load_profile("quick");
  ASSERT_TRUE(quick.ok()) << quick.error().describe();
  microseconds total{0};
  for (const auto& job : quick->jobs())
    total += job.ramp + job.runtime;
  // 10 s in all, with room for creating the file and the canary reads.
  EXPECT_LE(total, seconds(8));
}

TEST(Profile, SeedMatrixIsFiveModesTimesEightDepths) {
  auto profile = load_profile("ydb-randwrite");
  ASSERT_TRUE(profile.ok());
  const auto jobs = profile->jobs();
  ASSERT_EQ(jobs.size(), 40u);
  EXPECT_EQ(jobs.front().name(), "libaio randwrite 4k qd1");
  EXPECT_EQ(jobs.back().name(), "io_uring+iopoll+sqpoll randwrite 4k qd128");
  EXPECT_EQ(jobs.front().ramp, seconds(10));
  EXPECT_EQ(jobs.front().runtime, seconds(60));
  EXPECT_EQ(profile->precondition, Precondition::kDiscard);
}

TEST(Profile, ExpandsInOrderAndSynchronousEnginesRunOnce) {
  const auto profile = parse_ok(R"(
runtime = "2s"
[[workload]]
name = "mix"
engines = ["psync", "io_uring+sqpoll"]
rw = "randrw"
rwmixread = 70
bs = ["4k", "64k"]
iodepth = [1, 8]
ramp = "100ms"
)");
  std::vector<std::string> names;
  for (const auto& job : profile.jobs())
    names.push_back(job.name());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "psync randrw70 4k qd1", "psync randrw70 64k qd1",
                       "io_uring+sqpoll randrw70 4k qd1", "io_uring+sqpoll randrw70 4k qd8",
                       "io_uring+sqpoll randrw70 64k qd1", "io_uring+sqpoll randrw70 64k qd8"}));
  EXPECT_EQ(profile.jobs().front().runtime, seconds(2));
  EXPECT_EQ(profile.jobs().front().ramp, microseconds(100000));
}

TEST(Profile, OverridesReplaceFieldsInEveryWorkload) {
  auto profile = load_profile("quick");
  ASSERT_TRUE(profile.ok());
  ProfileOverrides overrides;
  overrides.engines = std::vector<EngineMode>{*EngineMode::parse("libaio")};
  overrides.iodepths = std::vector<uint32_t>{4};
  overrides.runtime = seconds(3);
  apply_overrides(*profile, overrides);
  for (const auto& job : profile->jobs()) {
    EXPECT_EQ(job.engine.label(), "libaio");
    EXPECT_EQ(job.iodepth, 4u);
    EXPECT_EQ(job.runtime, seconds(3));
  }
}

TEST(Profile, ErrorsNameTheFileLineAndField) {
  EXPECT_NE(parse_error("[[workload]\nname=").find("test.toml:1"), std::string::npos);
  EXPECT_NE(parse_error("size = \"4k\"\n").find("no [[workload]]"), std::string::npos);
  const std::string base = "[[workload]]\nengines = [\"io_uring\"]\nrw = \"randread\"\n";
  EXPECT_NE(
      parse_error(base + "bs = \"4k\"\niodepth = 1\ncolour = 1\n").find("unknown key \"colour\""),
      std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\n").find("missing \"iodepth\""), std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"3k7\"\niodepth = 1\n").find("test.toml:4"),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"1000\"\niodepth = 1\n").find("bs"), std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 0\n").find("iodepth"), std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = []\n").find("empty list"),
            std::string::npos);
  EXPECT_NE(
      parse_error("[[workload]]\nengines = [\"spdk\"]\nrw = \"read\"\nbs = 4096\niodepth = 1\n")
          .find("unknown engine"),
      std::string::npos);
  EXPECT_NE(parse_error("[[workload]]\nengines = \"libaio+sqpoll\"\nrw = \"read\"\nbs = 4096\n"
                        "iodepth = 1\n")
                .find("no mode \"sqpoll\""),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 1\n" + base + "bs = \"4k\"\niodepth = 1\n")
                .find("same job"),
            std::string::npos);
}

TEST(Profile, LoadsFromFileAndNamesMissingOnes) {
  testing::TempDir dir;
  dir.write("mine.toml",
            "[[workload]]\nengines = \"libaio\"\nrw = \"read\"\nbs = \"1m\"\niodepth = 2\n");
  auto profile = load_profile(dir.path() + "/mine.toml");
  ASSERT_TRUE(profile.ok()) << profile.error().describe();
  EXPECT_EQ(profile->name, "mine");
  EXPECT_EQ(profile->jobs().front().name(), "libaio read 1m qd2");
  auto missing = load_profile("no-such-profile");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().describe().find("quick"), std::string::npos);
  EXPECT_FALSE(load_profile(dir.path() + "/absent.toml").ok());
}

TEST(EngineMode, LabelsRoundTrip) {
  for (const char* label : {"io_uring", "io_uring+iopoll+sqpoll", "io_uring+fixedbufs+regfiles",
                            "libaio", "psync", "pvsync2+hipri"}) {
    auto mode = EngineMode::parse(label);
    ASSERT_TRUE(mode.ok()) << label;
    EXPECT_EQ(mode->label(), label);
  }
  EXPECT_TRUE(EngineMode::parse("pvsync2+hipri")->polled());
  EXPECT_TRUE(EngineMode::parse("psync")->synchronous());
  EXPECT_FALSE(EngineMode::parse("psync+hipri").ok());
}

}  // namespace
}  // namespace kdrift
