#include "checks/snapshot_files.h"

#include <gtest/gtest.h>

#include "checks/analysis.h"
#include "checks/rule_loader.h"
#include "snapshot/redact.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

std::string fixture(const std::string& name) {
  return testing::source_dir() + "/tests/fixtures/snapshots/" + name + ".json.gz";
}

Json read(const std::string& path) {
  auto snapshot = read_snapshot_file(path);
  EXPECT_TRUE(snapshot) << snapshot.error().describe();
  return snapshot ? *snapshot : Json();
}

class SnapshotFilesReport : public ::testing::Test {
 protected:
  std::vector<Rule> rules_ = *builtin_rules();
  const std::string lazy_ = fixture("intel-lazy");
  const std::string strict_ = fixture("intel-strict");
};

TEST_F(SnapshotFilesReport, OneSnapshotIsCheckedAgainstTheRules) {
  const auto report = snapshot_files_report({strict_, ""}, rules_);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(*report, check_report({read(strict_), strict_}, rules_));
}

TEST_F(SnapshotFilesReport, WithABaselineItIsTheDiffSinceIt) {
  for (const bool baseline_first : {false, true}) {
    const auto report = snapshot_files_report({strict_, lazy_, baseline_first}, rules_);
    ASSERT_TRUE(report) << report.error().describe();
    EXPECT_EQ(*report, diff_report({read(lazy_), lazy_}, {read(strict_), strict_}, rules_));
  }
}

TEST_F(SnapshotFilesReport, RedactionIsOneSetOfPseudonymsForBoth) {
  Json baseline = read(lazy_);
  Json snapshot = read(strict_);
  redact_snapshots({&baseline, &snapshot});
  const auto report = snapshot_files_report({strict_, lazy_, false, true}, rules_);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(*report, diff_report({baseline, lazy_}, {snapshot, strict_}, rules_));
  EXPECT_NE(*report, *snapshot_files_report({strict_, lazy_}, rules_));
}

TEST_F(SnapshotFilesReport, TheFirstFileReadThatFailsIsNamed) {
  const std::string missing_a = "/nonexistent/a.json";
  const std::string missing_b = "/nonexistent/b.json";
  auto named = [&](const SnapshotFiles& files) {
    const auto report = snapshot_files_report(files, rules_);
    EXPECT_FALSE(report);
    return report ? std::string() : report.error().describe();
  };
  EXPECT_NE(named({missing_a, missing_b}).find(missing_a), std::string::npos);
  EXPECT_NE(named({missing_a, missing_b, true}).find(missing_b), std::string::npos);
  EXPECT_NE(named({strict_, missing_b}).find(missing_b), std::string::npos);
  EXPECT_NE(named({missing_a, ""}).find(missing_a), std::string::npos);
}

}  // namespace
}  // namespace kdrift
