// The accuracy gate: for every pair in tests/fixtures/cases/ the expected finding is ranked first,
// and no snapshot diffed with itself, or with a second capture of the same boot, yields anything
// at warning or above.

#include <gtest/gtest.h>

#include <filesystem>

#include "collect/capture.h"
#include "rules/analysis.h"
#include "rules/rule_loader.h"
#include "support/accuracy_cases.h"
#include "support/fixtures.h"
#include "support/rules.h"
#include "support/snapshots.h"

namespace kdrift {
namespace {

using testing::accuracy_case_files;

testing::AccuracyCase load_case(const std::filesystem::path& file) {
  return testing::load_accuracy_case(
      file, [](std::string_view name) { return testing::fixture_snapshot(name); });
}

std::string ranking(const Json& report) {
  std::string text;
  for (const auto& finding : report["findings"]) {
    text += "  " + finding["rank"].dump() + ". " + finding["id"].get<std::string>() + " (" +
            finding["severity"].get<std::string>() + ", " +
            finding["direction"].get<std::string>() + ", score " + finding["score"].dump() + ")\n";
  }
  return text;
}

TEST(AccuracyCases, AtLeastTwelvePairs) {
  EXPECT_GE(accuracy_case_files().size(), 12U);
}

TEST(AccuracyCases, ExpectedFindingRanksFirst) {
  for (const auto& file : accuracy_case_files()) {
    SCOPED_TRACE(file.filename().string());
    const testing::AccuracyCase pair = load_case(file);
    EXPECT_FALSE(pair.top.empty()) << "the case names no top finding";
    const Json report =
        diff_report({pair.a, "a"}, {pair.b, "b"}, testing::builtin_rule_set()).document;
    if (report["findings"].empty()) {
      ADD_FAILURE() << "no finding; " << pair.description;
      continue;
    }
    const Json& top = report["findings"][0];
    EXPECT_EQ(top["id"], pair.top) << pair.description << "\nranking:\n" << ranking(report);
    if (pair.top_severity) {
      EXPECT_EQ(top["severity"], *pair.top_severity) << ranking(report);
    }
    if (pair.exit_status) {
      EXPECT_EQ(report_exit_status(report), *pair.exit_status) << ranking(report);
    }
    for (const auto& line : pair.top_evidence) {
      const auto& evidence = top["evidence"];
      EXPECT_NE(std::find(evidence.begin(), evidence.end(), line), evidence.end())
          << line << " not in " << evidence.dump(2);
    }
  }
}

TEST(AccuracyCases, SelfDiffFindsNothing) {
  for (const auto& name : testing::fixture_sysroot_names()) {
    SCOPED_TRACE(name);
    const Json& snapshot = testing::fixture_snapshot(name);
    const Json report =
        diff_report({snapshot, "a"}, {snapshot, "b"}, testing::builtin_rule_set()).document;
    EXPECT_TRUE(report["findings"].empty()) << ranking(report);
    EXPECT_TRUE(report["changes"].empty()) << report["changes"].dump(2);
    EXPECT_EQ(report_exit_status(report), 0);
  }
}

TEST(AccuracyCases, RecaptureOfTheSameBootFindsNothing) {
  for (const auto& name : testing::fixture_sysroot_names()) {
    SCOPED_TRACE(name);
    const Json again = capture_snapshot(SysRoot(testing::fixture_sysroot(name)));
    const Json report = diff_report({testing::fixture_snapshot(name), "a"}, {again, "b"},
                                    testing::builtin_rule_set())
                            .document;
    EXPECT_EQ(report["status"]["warning"], 0) << ranking(report);
    EXPECT_EQ(report["status"]["critical"], 0) << ranking(report);
    EXPECT_TRUE(report["changes"].empty()) << report["changes"].dump(2);
  }
}

}  // namespace
}  // namespace kdrift
