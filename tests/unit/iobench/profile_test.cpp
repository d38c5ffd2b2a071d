#include "iobench/profile.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

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
  EXPECT_EQ(names, (std::set<std::string>{"blocksize-sweep", "lab", "lab-bisect-metric",
                                          "lab-iopoll", "lab-quick", "latency-qd1", "quick",
                                          "readahead", "ydb-randwrite"}));
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

// As fio: once the queue is full, one completion is taken and one slot refilled, unless the
// profile asks for a window; 0 still means every completion available.
TEST(Profile, CompletionBatchesDefaultToFiosAndSpinIsNamed) {
  const auto profile = parse_ok(R"(
[[workload]]
name = "plain"
engines = ["io_uring", "psync"]
rw = "randread"
bs = "4k"
iodepth = 16
[[workload]]
name = "window"
engines = "libaio"
rw = "read"
bs = "4k"
iodepth = 32
batch_submit = 8
batch_complete_min = 8
completion_wait = "spin"
[[workload]]
name = "all"
engines = "io_uring"
rw = "randwrite"
bs = "4k"
iodepth = 16
batch_complete_max = 0
like_fio = true
)");
  const auto jobs = profile.jobs();
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].batch_complete_min, 1u);
  EXPECT_EQ(jobs[0].batch_complete_max, 1u);
  EXPECT_EQ(jobs[0].completion_wait, CompletionWait::kSleep);
  EXPECT_EQ(jobs[2].name(), "libaio read 4k qd32 window8 spin");
  EXPECT_EQ(jobs[2].batch_complete_max, 8u);
  EXPECT_EQ(jobs[2].completion_wait, CompletionWait::kSpin);
  EXPECT_EQ(jobs[3].batch_complete_max, 0u);
  EXPECT_TRUE(jobs[3].like_fio);
  EXPECT_EQ(jobs[3].name(), "io_uring randwrite 4k qd16 like-fio");

  auto overridden = profile;
  ProfileOverrides overrides;
  overrides.completion_wait = CompletionWait::kSpin;
  overrides.batch_complete_max = 4;
  ASSERT_TRUE(apply_overrides(overridden, overrides).ok());
  for (const auto& job : overridden.jobs()) {
    EXPECT_EQ(job.completion_wait, CompletionWait::kSpin) << job.name();
    EXPECT_EQ(job.batch_complete_max, 4u) << job.name();
  }
  EXPECT_FALSE(overridden.jobs()[0].like_fio);
  overrides.like_fio = true;
  ASSERT_TRUE(apply_overrides(overridden, overrides).ok());
  EXPECT_EQ(overridden.jobs()[3].name(), "io_uring randwrite 4k qd16 spin like-fio");
  // Synchronous engines never wait for a queue: their names stay as they were.
  EXPECT_EQ(overridden.jobs()[1].name(), "psync randread 4k qd1 like-fio");
}

TEST(Profile, OverridesReplaceFieldsInEveryWorkload) {
  auto profile = load_profile("quick");
  ASSERT_TRUE(profile.ok());
  ProfileOverrides overrides;
  overrides.engines = std::vector<EngineMode>{*EngineMode::parse("libaio")};
  overrides.iodepths = std::vector<uint32_t>{4};
  overrides.runtime = seconds(3);
  ASSERT_TRUE(apply_overrides(*profile, overrides).ok());
  for (const auto& job : profile->jobs()) {
    EXPECT_EQ(job.engine.label(), "libaio");
    EXPECT_EQ(job.iodepth, 4u);
    EXPECT_EQ(job.runtime, seconds(3));
  }
}

TEST(Profile, ErrorsNameTheFileLineAndField) {
  EXPECT_NE(parse_error("[[workload]\nname=").find("test.toml:1"), std::string::npos);
  EXPECT_NE(parse_error("size = \"4m\"\n").find("no [[workload]]"), std::string::npos);
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
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 1\ncompletion_wait = \"poll\"\n")
                .find("completion_wait (\"sleep\" or \"spin\")"),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 1\nlike_fio = \"yes\"\n")
                .find("like_fio (true or false)"),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 1\n" + base + "bs = \"4k\"\niodepth = 1\n")
                .find("same job"),
            std::string::npos);
}

TEST(Profile, EveryValueIsCheckedAgainstTheJobBoundsNamingFileLineAndKey) {
  const std::string base = "[[workload]]\nengines = [\"io_uring\"]\nrw = \"randread\"\n";
  // bs = "0" once reached the engines and divided by zero.
  EXPECT_EQ(parse_error(base + "bs = \"0\"\niodepth = 1\n"),
            "test.toml:4: workload \"workload1\": bs: invalid value \"0\": a positive multiple of "
            "512 bytes (the sector size) up to 64m, not 0: Invalid argument");
  EXPECT_NE(parse_error(base + "bs = [\"4k\", 0]\niodepth = 1\n").find("bs: invalid value 0"),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 4097\n").find("from 1 to 4096, not 4097"),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 1\nbatch_complete_min = 0\n")
                .find("test.toml:6: workload \"workload1\": batch_complete_min"),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"4k\"\niodepth = 1\nruntime = \"0s\"\n").find("runtime"),
            std::string::npos);
  // Found by the profile fuzzer: seconds this large overflowed on the way to microseconds.
  EXPECT_NE(
      parse_error(base + "bs = \"4k\"\niodepth = 1\nruntime = 8888888888888888\n").find("runtime"),
      std::string::npos);
  EXPECT_NE(parse_error("size = \"4k\"\n" + base + "bs = \"4k\"\niodepth = 1\n")
                .find("test.toml:1: size: invalid value \"4k\""),
            std::string::npos);
  EXPECT_NE(parse_error("ramp = \"2h\"\n" + base + "bs = \"4k\"\niodepth = 1\n")
                .find("test.toml:1: ramp"),
            std::string::npos);
  EXPECT_NE(parse_error(base + "bs = \"64m\"\niodepth = 4096\n")
                .find("workload \"workload1\": block size 64m at queue depth 4096"),
            std::string::npos);
}

TEST(Profile, OverridesAreCheckedAsAProfileIsAndTurnOnIoUringModes) {
  Profile profile = parse_ok(
      "[[workload]]\nname = \"w\"\nengines = [\"io_uring\", \"libaio\"]\nrw = \"randread\"\n"
      "bs = \"4k\"\niodepth = 1\n");
  ProfileOverrides modes;
  modes.uring_modes.sqpoll = true;
  modes.uring_modes.fixedbufs = true;
  ASSERT_TRUE(apply_overrides(profile, modes).ok());
  EXPECT_EQ(profile.workloads[0].engines[0].label(), "io_uring+sqpoll+fixedbufs");
  EXPECT_EQ(profile.workloads[0].engines[1].label(), "libaio");
  ProfileOverrides huge;
  huge.block_sizes = std::vector<uint64_t>{uint64_t{64} << 20};
  huge.iodepths = std::vector<uint32_t>{4096};
  const auto refused = apply_overrides(profile, huge);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(),
            "workload \"w\": block size 64m at queue depth 4096 holds more than 1g of buffers");
}

// A few hundred bytes of lists would otherwise expand to millions of jobs before any check.
TEST(Profile, AMatrixPastTheJobBoundIsRefusedBeforeItIsExpanded) {
  std::string sizes;
  std::string depths;
  for (int i = 1; i <= 40; ++i) {
    sizes += (i > 1 ? ", " : "") + std::to_string(512 * i);
    depths += (i > 1 ? ", " : "") + std::to_string(i);
  }
  const std::string matrix =
      "[[workload]]\nname = \"m\"\nengines = [\"io_uring\"]\n"
      "rw = \"randread\"\nbs = [" +
      sizes + "]\niodepth = [" + depths + "]\n";
  EXPECT_EQ(parse_error(matrix),
            "test.toml: engines x block sizes x queue depths come to more than 1024 jobs (at "
            "workload \"m\"): Invalid argument");
  Profile profile = parse_ok(
      "[[workload]]\nname = \"w\"\nengines = [\"io_uring\"]\nrw = \"randread\"\n"
      "bs = \"4k\"\niodepth = 1\n");
  ProfileOverrides wide;
  wide.block_sizes = std::vector<uint64_t>(2000, 4096);
  const auto refused = apply_overrides(profile, wide);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().describe().find("more than 1024 jobs"), std::string::npos);
}

TEST(Profile, TwoWorkloadsWithACommonJobAreBothNamed) {
  const std::string first =
      "[[workload]]\nname = \"a\"\nengines = [\"psync\"]\nrw = \"randread\"\nbs = \"4k\"\n"
      "iodepth = [1, 16]\n";
  // psync at depths 1 and 16 is one job of workload a's own: not a clash.
  EXPECT_EQ(parse_ok(first).jobs().size(), 1U);
  const std::string second =
      "[[workload]]\nname = \"b\"\nengines = [\"io_uring\", \"psync\"]\n"
      "rw = \"randread\"\nbs = \"4k\"\niodepth = 4\n";
  EXPECT_EQ(parse_error(first + second),
            "test.toml: workloads \"a\" and \"b\" give the same job; give them different "
            "parameters: Invalid argument");
}

TEST(Profile, AKeyNestedTooDeepIsRefusedBeforeTomlParsesIt) {
  std::string deep = "a = ";
  for (int i = 0; i < 50000; ++i)
    deep += "{ b = ";
  deep += "1";
  for (int i = 0; i < 50000; ++i)
    deep += " }";
  EXPECT_EQ(parse_error(deep + "\n"), "test.toml:1: nested deeper than 32 levels");
  std::string dotted = "a";
  for (int i = 0; i < 50000; ++i)
    dotted += ".a";
  EXPECT_EQ(parse_error(dotted + " = 1\n"), "test.toml:1: nested deeper than 32 levels");
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
  const std::string fifo = dir.path() + "/fifo.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto refused = load_profile(fifo);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(), fifo + ": a FIFO, not a regular file");
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
