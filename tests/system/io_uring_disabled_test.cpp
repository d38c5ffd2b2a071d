// kernel.io_uring_disabled is kernel-wide: this binary runs alone (RUN_SERIAL), so no other
// test's io_uring is switched off under it.

#include <gtest/gtest.h>

#include "support/fixtures.h"
#include "support/probe_runs.h"

namespace kdrift {
namespace {

TEST(ProbeSerial, DisabledIoUringIsReportedAsSuch) {
  REQUIRE_ROOT();
  testing::ScopedSysctl disabled("/proc/sys/kernel/io_uring_disabled", "2");
  if (!disabled.ok()) GTEST_SKIP() << "kernel.io_uring_disabled not available (before 6.6)";
  testing::TempDir dir;
  const Json probe = testing::probe_json(
      "--target " + dir.path() +
      " --size 8m --engine io_uring,psync --rw randread --runtime 100ms --ramp 0s --iodepth 1");
  const Json& canary = probe["capabilities"]["io_uring"];
  EXPECT_EQ(canary["status"], "failed");
  EXPECT_EQ(canary["errno"], EPERM);
  EXPECT_NE(canary["cause"].get<std::string>().find("kernel.io_uring_disabled = 2"),
            std::string::npos)
      << canary.dump();
  EXPECT_EQ(testing::job_named(probe, "io_uring randread 4k qd1")["status"], "failed");
  EXPECT_EQ(testing::job_named(probe, "psync randread 4k qd1")["status"], "ok");
}

}  // namespace
}  // namespace kdrift
