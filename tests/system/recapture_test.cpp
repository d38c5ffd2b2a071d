// Two captures of this boot must find nothing, so nothing else may change the host between them:
// the parallel system tier binds and detaches loop devices all along (a loop device that went
// away between the captures once showed up as eleven changes). This binary runs alone (RUN_SERIAL).

#include <gtest/gtest.h>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift {
namespace {

TEST(CliSerial, RecaptureOfThisBootFindsNothing) {
  testing::TempDir dir;
  ASSERT_EQ(testing::run_kdrift("capture -o " + dir.path() + "/1.json").status, 0);
  ASSERT_EQ(testing::run_kdrift("capture -o " + dir.path() + "/2.json").status, 0);
  const auto run =
      testing::run_kdrift("diff " + dir.path() + "/1.json " + dir.path() + "/2.json --format json");
  EXPECT_EQ(run.status, 0) << run.out;
  const Json report = Json::parse(run.out);
  EXPECT_TRUE(report["findings"].empty()) << report["findings"].dump(2);
  EXPECT_TRUE(report["changes"].empty()) << report["changes"].dump(2);
}

}  // namespace
}  // namespace kdrift
