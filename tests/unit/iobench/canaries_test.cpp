#include "iobench/canaries.h"

#include <gtest/gtest.h>

#include "iobench/job_accounting.h"

namespace kdrift {
namespace {

TEST(Canaries, EveryModeOfTheMatrixParses) {
  for (const char* name : kCapabilityModes) {
    auto mode = EngineMode::parse(name);
    ASSERT_TRUE(mode.ok()) << name;
    EXPECT_EQ(mode->label(), name);
  }
}

TEST(Canaries, AFailedModeCarriesItsErrnoAndCause) {
  FailureContext context;
  context.io_uring_disabled = 2;
  const EngineMode mode = *EngineMode::parse("io_uring");
  const Json entry = canary_entry(IoFailure{EPERM, "io_uring_queue_init"}, mode, context);
  Json expected = failure_json(EPERM, "io_uring_queue_init", mode, context);
  expected["status"] = "failed";
  EXPECT_EQ(entry, expected);
  EXPECT_NE(entry["cause"].get<std::string>().find("io_uring_disabled"), std::string::npos)
      << entry.dump();
}

TEST(Canaries, APolledModeWithoutPollQueuesIsOkWithoutPolling) {
  FailureContext context;
  context.disk = "zram0";
  context.bio_based = true;
  const EngineMode polled = *EngineMode::parse("io_uring+iopoll");
  const Json entry = canary_entry(std::nullopt, polled, context);
  EXPECT_EQ(entry["status"], "ok-without-polling");
  EXPECT_EQ(entry["cause"], *polling_doubt(polled, context));
  EXPECT_EQ(canary_entry(std::nullopt, *EngineMode::parse("libaio"), context),
            Json({{"status", "ok"}}));
  context = FailureContext{};
  context.io_poll = 1;
  EXPECT_EQ(canary_entry(std::nullopt, polled, context), Json({{"status", "ok"}}));
}

}  // namespace
}  // namespace kdrift
