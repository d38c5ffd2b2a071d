#include "iobench/override_flags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kdrift {
namespace {

std::string refusal(const OverrideFlags& flags) {
  auto overrides = parse_override_flags(flags);
  return overrides.ok() ? "accepted" : overrides.error().describe();
}

TEST(OverrideFlags, NothingGivenOverridesNothing) {
  auto overrides = parse_override_flags(OverrideFlags{});
  ASSERT_TRUE(overrides.ok());
  EXPECT_FALSE(overrides->engines || overrides->rw || overrides->rwmixread ||
               overrides->block_sizes || overrides->iodepths || overrides->batch_submit ||
               overrides->batch_complete_min || overrides->batch_complete_max ||
               overrides->completion_wait || overrides->ramp || overrides->runtime ||
               overrides->file_size || overrides->uring_modes.sqpoll_cpu || overrides->like_fio);
}

TEST(OverrideFlags, EveryFlagLandsInItsField) {
  OverrideFlags flags;
  flags.engines = "io_uring+iopoll, libaio";
  flags.rw = "randrw";
  flags.rwmixread = 70;
  flags.block_sizes = "4k,1m";
  flags.iodepths = "1, 32";
  flags.runtime = "500ms";
  flags.ramp = "0";
  flags.size = "64m";
  flags.batch_submit = 0;
  flags.batch_complete_min = 4;
  flags.batch_complete_max = 0;
  flags.completion_wait = "spin";
  flags.sqpoll = true;
  flags.sqpoll_cpu = 3;
  flags.like_fio = true;
  auto overrides = parse_override_flags(flags);
  ASSERT_TRUE(overrides.ok()) << overrides.error().describe();
  ASSERT_EQ(overrides->engines->size(), 2u);
  EXPECT_EQ((*overrides->engines)[0].label(), "io_uring+iopoll");
  EXPECT_EQ(overrides->rw, Pattern::kRandRw);
  EXPECT_EQ(overrides->rwmixread, 70u);
  EXPECT_EQ(overrides->block_sizes, (std::vector<uint64_t>{4096, 1 << 20}));
  EXPECT_EQ(overrides->iodepths, (std::vector<uint32_t>{1, 32}));
  EXPECT_EQ(overrides->runtime, std::chrono::milliseconds(500));
  EXPECT_EQ(overrides->ramp, std::chrono::microseconds(0));
  EXPECT_EQ(overrides->file_size, uint64_t{64} << 20);
  EXPECT_EQ(overrides->batch_submit, 0u);
  EXPECT_EQ(overrides->batch_complete_min, 4u);
  EXPECT_EQ(overrides->batch_complete_max, 0u);
  EXPECT_EQ(overrides->completion_wait, CompletionWait::kSpin);
  EXPECT_TRUE(overrides->uring_modes.sqpoll);
  EXPECT_FALSE(overrides->uring_modes.iopoll);
  EXPECT_EQ(overrides->uring_modes.sqpoll_cpu, 3);
  EXPECT_TRUE(overrides->like_fio);
}

// --sqpoll-cpu reaches every job through the profile, as every other override does.
TEST(OverrideFlags, TheSqpollCpuReachesEveryJob) {
  auto profile = load_profile("quick");
  ASSERT_TRUE(profile.ok());
  OverrideFlags flags;
  flags.sqpoll_cpu = 1;
  ASSERT_TRUE(apply_overrides(*profile, *parse_override_flags(flags)).ok());
  for (const auto& job : profile->jobs())
    EXPECT_EQ(job.sqpoll_cpu, 1) << job.name();
  flags.sqpoll_cpu = -1;  // not given
  auto untouched = load_profile("quick");
  ASSERT_TRUE(apply_overrides(*untouched, *parse_override_flags(flags)).ok());
  for (const auto& job : untouched->jobs())
    EXPECT_EQ(job.sqpoll_cpu, std::nullopt);
}

TEST(OverrideFlags, TheFirstRefusedFlagNamesItselfAndItsValue) {
  OverrideFlags flags;
  flags.iodepths = "4,x";
  flags.rw = "sideways";
  EXPECT_EQ(refusal(flags), "--rw: expected randread, randwrite, read, write or randrw");
  flags.rw.clear();
  EXPECT_EQ(refusal(flags), "--iodepth: cannot use \"x\": not a number");
  flags.iodepths = "-1";
  EXPECT_EQ(refusal(flags), "--iodepth: cannot use \"-1\": not a number");
  flags.iodepths.clear();
  flags.engines = "nope";
  EXPECT_EQ(refusal(flags),
            "--engine: cannot use \"nope\": unknown engine \"nope\" (io_uring, libaio, psync, "
            "pvsync2): Invalid argument");
  flags.engines.clear();
  flags.completion_wait = "maybe";
  EXPECT_EQ(refusal(flags), "--completion-wait: sleep or spin");
  flags.completion_wait.clear();
  flags.runtime = "abc";
  EXPECT_EQ(refusal(flags), "--runtime: cannot use \"abc\": not a duration (500ms, 5s)");
  flags.runtime.clear();
  flags.block_sizes = "4k,zz";
  EXPECT_EQ(refusal(flags), "--bs: cannot use \"zz\": not a size (4k, 1m, or a number of bytes)");
}

// One bad value, given once as a TOML key and once as a flag.
struct Bound {
  const char* key;  // in a workload, or at the top ("size", "ramp", "runtime")
  const char* toml_value;
  void (*set_flag)(OverrideFlags&);
  const char* flag;
  const char* flag_value;
  const char* rule;  // what job_validation.h allows
};

const std::string kWorkload =
    "[[workload]]\nname = \"w\"\nengines = [\"io_uring\"]\nrw = \"randread\"\n";

std::string toml_refusal(const Bound& bound) {
  const bool top = std::string(bound.key) == "size" || std::string(bound.key) == "ramp" ||
                   std::string(bound.key) == "runtime";
  const std::string line = std::string(bound.key) + " = " + bound.toml_value + "\n";
  std::string text = top ? line + kWorkload : kWorkload;
  if (std::string(bound.key) != "bs") text += "bs = \"4k\"\n";
  if (std::string(bound.key) != "iodepth") text += "iodepth = 16\n";
  if (!top) text += line;
  auto profile = parse_profile(text, "test", "test.toml");
  return profile.ok() ? "accepted" : profile.error().describe();
}

const Bound kBounds[] = {
    {"iodepth", "0", [](OverrideFlags& f) { f.iodepths = "0"; }, "--iodepth", "0",
     "from 1 to 4096, not 0"},
    {"iodepth", "4097", [](OverrideFlags& f) { f.iodepths = "4097"; }, "--iodepth", "4097",
     "from 1 to 4096, not 4097"},
    {"bs", "\"0\"", [](OverrideFlags& f) { f.block_sizes = "0"; }, "--bs", "0",
     "a positive multiple of 512 bytes (the sector size) up to 64m, not 0"},
    {"bs", "\"513\"", [](OverrideFlags& f) { f.block_sizes = "513"; }, "--bs", "513",
     "a positive multiple of 512 bytes (the sector size) up to 64m, not 513"},
    {"bs", "\"128m\"", [](OverrideFlags& f) { f.block_sizes = "128m"; }, "--bs", "128m",
     "a positive multiple of 512 bytes (the sector size) up to 64m, not 134217728"},
    {"rwmixread", "101", [](OverrideFlags& f) { f.rwmixread = 101; }, "--rwmixread", "101",
     "from 0 to 100, not 101"},
    {"rwmixread", "-1", [](OverrideFlags& f) { f.rwmixread = -1; }, "--rwmixread", "-1",
     "from 0 to 100, not -1"},
    {"batch_submit", "-1", [](OverrideFlags& f) { f.batch_submit = -1; }, "--batch-submit", "-1",
     "from 0 to 4096, not -1"},
    {"batch_submit", "4097", [](OverrideFlags& f) { f.batch_submit = 4097; }, "--batch-submit",
     "4097", "from 0 to 4096, not 4097"},
    {"batch_complete_min", "0", [](OverrideFlags& f) { f.batch_complete_min = 0; },
     "--batch-complete-min", "0", "from 1 to 4096, not 0"},
    {"batch_complete_min", "4097", [](OverrideFlags& f) { f.batch_complete_min = 4097; },
     "--batch-complete-min", "4097", "from 1 to 4096, not 4097"},
    {"batch_complete_max", "-1", [](OverrideFlags& f) { f.batch_complete_max = -1; },
     "--batch-complete-max", "-1", "from 0 to 4096, not -1"},
    {"batch_complete_max", "4097", [](OverrideFlags& f) { f.batch_complete_max = 4097; },
     "--batch-complete-max", "4097", "from 0 to 4096, not 4097"},
    {"runtime", "\"0s\"", [](OverrideFlags& f) { f.runtime = "0s"; }, "--runtime", "0s",
     "from 1ms to 3600s, not 0us"},
    {"runtime", "\"2h\"", [](OverrideFlags& f) { f.runtime = "2h"; }, "--runtime", "2h",
     "from 1ms to 3600s, not 7200s"},
    {"ramp", "\"2h\"", [](OverrideFlags& f) { f.ramp = "2h"; }, "--ramp", "2h",
     "from 0us to 3600s, not 7200s"},
    {"size", "\"1k\"", [](OverrideFlags& f) { f.size = "1k"; }, "--size", "1k",
     "a multiple of 512 bytes from 1m to 16t, not 1024"},
    {"size", "\"17t\"", [](OverrideFlags& f) { f.size = "17t"; }, "--size", "17t",
     "a multiple of 512 bytes from 1m to 16t, not 18691697672192"},
};

TEST(OverrideFlags, EveryBoundRefusesTheSameValueFromTomlAndFromFlags) {
  for (const Bound& bound : kBounds) {
    OverrideFlags flags;
    bound.set_flag(flags);
    EXPECT_EQ(refusal(flags),
              std::string(bound.flag) + ": cannot use \"" + bound.flag_value + "\": " + bound.rule);
    const std::string from_toml = toml_refusal(bound);
    EXPECT_NE(from_toml.find(std::string(bound.key) + ": invalid value"), std::string::npos)
        << from_toml;
    EXPECT_NE(from_toml.find(": " + std::string(bound.rule) + ": Invalid argument"),
              std::string::npos)
        << bound.key << " = " << bound.toml_value << ": " << from_toml;
  }
}

TEST(OverrideFlags, TheBoundsValuesAreAcceptedFromBoth) {
  OverrideFlags flags;
  flags.iodepths = "1,4096";
  flags.block_sizes = "512,64m";
  flags.batch_complete_min = 1;
  flags.batch_submit = 4096;
  flags.batch_complete_max = 4096;
  flags.rwmixread = 0;
  flags.runtime = "1ms";
  flags.ramp = "1h";
  flags.size = "1m";
  EXPECT_EQ(refusal(flags), "accepted");
  EXPECT_EQ(toml_refusal({"batch_complete_min", "1", nullptr, "", "", ""}), "accepted");
  EXPECT_EQ(toml_refusal({"iodepth", "[1, 4096]", nullptr, "", "", ""}), "accepted");
  EXPECT_EQ(toml_refusal({"runtime", "\"1ms\"", nullptr, "", "", ""}), "accepted");
}

// What no single value shows, the buffers a workload holds, is the same check for both.
TEST(OverrideFlags, BuffersAreBoundedFromTomlAndFromFlags) {
  auto profile = parse_profile(kWorkload + "bs = \"4k\"\niodepth = 1\n", "test", "test.toml");
  ASSERT_TRUE(profile.ok());
  OverrideFlags flags;
  flags.block_sizes = "64m";
  flags.iodepths = "4096";
  const auto refused = apply_overrides(*profile, *parse_override_flags(flags));
  ASSERT_FALSE(refused.ok());
  const std::string rule = "block size 64m at queue depth 4096 holds more than 1g of buffers";
  EXPECT_EQ(refused.error().describe(), "workload \"w\": " + rule);
  auto from_toml = parse_profile(kWorkload + "bs = \"64m\"\niodepth = 4096\n", "test", "test.toml");
  ASSERT_FALSE(from_toml.ok());
  EXPECT_NE(from_toml.error().describe().find("workload \"w\": " + rule), std::string::npos);
}

}  // namespace
}  // namespace kdrift
