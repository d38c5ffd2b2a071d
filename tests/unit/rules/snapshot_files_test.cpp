#include "rules/snapshot_files.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "diff/probe_compare.h"
#include "rules/analysis.h"
#include "rules/rule_loader.h"
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
  const auto report = snapshot_files_report({{strict_}, {}}, rules_);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->document, check_report({read(strict_), strict_}, rules_));
  EXPECT_TRUE(report->probe_jobs.empty());
}

TEST_F(SnapshotFilesReport, WithABaselineItIsTheDiffSinceIt) {
  for (const bool baseline_first : {false, true}) {
    const auto report = snapshot_files_report({{strict_}, {lazy_}, baseline_first}, rules_);
    ASSERT_TRUE(report) << report.error().describe();
    EXPECT_EQ(report->document,
              diff_report({read(lazy_), lazy_}, {read(strict_), strict_}, rules_).document);
  }
}

TEST_F(SnapshotFilesReport, RedactionIsOneSetOfPseudonymsForBoth) {
  Json baseline = read(lazy_);
  Json snapshot = read(strict_);
  redact_snapshots({&baseline, &snapshot});
  const auto report = snapshot_files_report({{strict_}, {lazy_}, false, true}, rules_);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->document, diff_report({baseline, lazy_}, {snapshot, strict_}, rules_).document);
  EXPECT_NE(report->document, snapshot_files_report({{strict_}, {lazy_}}, rules_)->document);
}

TEST_F(SnapshotFilesReport, TheFirstFileReadThatFailsIsNamed) {
  const std::string missing_a = "/nonexistent/a.json";
  const std::string missing_b = "/nonexistent/b.json";
  auto named = [&](const SnapshotFiles& files) {
    const auto report = snapshot_files_report(files, rules_);
    EXPECT_FALSE(report);
    return report ? std::string() : report.error().describe();
  };
  EXPECT_NE(named({{missing_a}, {missing_b}}).find(missing_a), std::string::npos);
  EXPECT_NE(named({{missing_a}, {missing_b}, true}).find(missing_b), std::string::npos);
  EXPECT_NE(named({{strict_}, {missing_b}}).find(missing_b), std::string::npos);
  EXPECT_NE(named({{missing_a}, {}}).find(missing_a), std::string::npos);
  EXPECT_NE(named({{strict_, missing_a}, {lazy_, lazy_}}).find(missing_a), std::string::npos);
}

TEST_F(SnapshotFilesReport, SidesAreBoundedAndSeveralToCheckNeedABaseline) {
  const auto several = snapshot_files_report({{strict_, lazy_}, {}}, rules_);
  ASSERT_FALSE(several);
  EXPECT_NE(several.error().describe().find("need a baseline"), std::string::npos);
  const std::vector<std::string> many(kMaxSnapshotsPerSide + 1, lazy_);
  const auto bounded = snapshot_files_report({{strict_}, many}, rules_);
  ASSERT_FALSE(bounded);
  EXPECT_NE(bounded.error().describe().find("at most 16"), std::string::npos);
}

// A second boot of the same setup: the snapshot with every probe figure scaled, written to dir.
std::string another_boot(const std::string& path, double factor, const testing::TempDir& dir,
                         const std::string& name) {
  Json snapshot = read(path);
  for (auto& job : snapshot["probe"]["jobs"]) {
    for (const char* direction : {"read", "write"}) {
      if (!job.contains(direction)) continue;
      Json& stats = job[direction];
      if (stats.contains("iops")) stats["iops"] = stats["iops"].get<double>() * factor;
      if (stats.contains("iops_per_second")) {
        for (auto& sample : stats["iops_per_second"]["samples"])
          sample = static_cast<uint64_t>(sample.get<double>() * factor);
      }
    }
  }
  const std::string out = dir.path() + "/" + name + ".json";
  std::ofstream(out) << snapshot.dump();
  return out;
}

TEST_F(SnapshotFilesReport, OneSnapshotTwiceOnASideIsNotASecondSample) {
  const auto twice = snapshot_files_report({{strict_, strict_}, {lazy_}}, rules_);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().describe().find("the same snapshot"), std::string::npos);
}

// Two snapshots a side: what holds for every pair is a finding; a setting one side's own
// snapshots disagree on is reported as such, never as a change.
TEST_F(SnapshotFilesReport, SeveralASideKeepOnlyWhatEveryPairShows) {
  testing::TempDir dir;
  const std::string lazy_again = another_boot(lazy_, 1.02, dir, "lazy2");
  const std::string strict_again = another_boot(strict_, 0.98, dir, "strict2");
  const auto sets = snapshot_files_report({{strict_, strict_again}, {lazy_, lazy_again}}, rules_);
  ASSERT_TRUE(sets) << sets.error().describe();
  const auto pair = snapshot_files_report({{strict_}, {lazy_}}, rules_);
  ASSERT_TRUE(pair);
  const auto setting_ids = [](const Json& report) {
    std::set<std::string> ids;
    for (const auto& finding : report["findings"]) {
      if (finding["id"] != "probe.regression") ids.insert(finding["id"].get<std::string>());
    }
    return ids;
  };
  EXPECT_EQ(setting_ids(sets->document), setting_ids(pair->document));
  EXPECT_TRUE(sets->document["varies_within"]["findings"].empty());
  EXPECT_TRUE(sets->document["varies_within"]["a"].empty()) << "probe figures are not settings";
  EXPECT_EQ(sets->document["a"]["snapshots"].size(), 2U);
  EXPECT_EQ(sets->document["probe"]["unit"], "snapshot");
  // A's snapshots disagree on the IOMMU mode (lazy, passthrough): what only some pairs show is
  // listed as such, and no value A disagrees on is a change.
  const std::string passthrough = fixture("intel-pt");
  const auto mixed = snapshot_files_report({{strict_, strict_again}, {lazy_, passthrough}}, rules_);
  ASSERT_TRUE(mixed) << mixed.error().describe();
  const Json& within = mixed->document["varies_within"];
  EXPECT_FALSE(within["findings"].empty()) << within.dump(1);
  EXPECT_FALSE(within["a"].empty());
  EXPECT_TRUE(within["b"].empty());
  for (const auto& finding : within["findings"])
    EXPECT_LT(finding["pairs"].get<int>(), finding["of"].get<int>());
  std::set<std::string> varying;
  for (const auto& [section, list] : within["a"].items()) {
    for (const auto& change : list)
      varying.insert(change["path"].get<std::string>());
  }
  for (const auto& [section, list] : mixed->document["changes"].items()) {
    for (const auto& change : list)
      EXPECT_EQ(varying.count(change["path"].get<std::string>()), 0U) << change["path"];
  }
}

}  // namespace
}  // namespace kdrift
