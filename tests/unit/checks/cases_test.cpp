// The accuracy gate: for every pair in tests/fixtures/cases/ the expected finding is ranked first,
// and no snapshot diffed with itself, or with a second capture of the same boot, yields anything
// at warning or above.

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <filesystem>

#include "checks/analysis.h"
#include "checks/rule_loader.h"
#include "collect/capture.h"
#include "support/fixtures.h"
#include "support/snapshots.h"

namespace kdrift {
namespace {

Json json_of(const toml::node& node) {
  if (const auto* table = node.as_table()) {
    Json object = Json::object();
    for (const auto& [key, value] : *table)
      object[std::string(key.str())] = json_of(value);
    return object;
  }
  if (const auto* array = node.as_array()) {
    Json list = Json::array();
    for (const auto& item : *array)
      list.push_back(json_of(item));
    return list;
  }
  if (const auto* text = node.as_string()) return text->get();
  if (const auto* number = node.as_integer()) return number->get();
  if (const auto* number = node.as_floating_point()) return number->get();
  if (const auto* flag = node.as_boolean()) return flag->get();
  return nullptr;
}

struct Case {
  std::string name;
  std::string description;
  Json a;
  Json b;
  std::string top;
  std::optional<std::string> top_severity;
  std::optional<int64_t> exit_status;
  std::vector<std::string> top_evidence;  // lines the top finding's evidence must hold
};

Case load_case(const std::filesystem::path& file) {
  const toml::table document = toml::parse_file(file.string());
  Case loaded;
  loaded.name = file.stem().string();
  loaded.description = document["description"].value_or(std::string());
  loaded.a = testing::fixture_snapshot(document["a"].value_or(std::string()));
  loaded.b = testing::fixture_snapshot(document["b"].value_or(std::string()));
  loaded.top = document["top"].value_or(std::string());
  loaded.top_severity = document["top_severity"].value<std::string>();
  loaded.exit_status = document["exit_status"].value<int64_t>();
  if (const auto* lines = document["top_evidence"].as_array()) {
    for (const auto& line : *lines)
      loaded.top_evidence.push_back(line.value_or(std::string()));
  }
  if (const auto* edits = document["edit"].as_array()) {
    for (const auto& edit : *edits) {
      const auto& table = *edit.as_table();
      Json& side = table["side"].value_or(std::string()) == "a" ? loaded.a : loaded.b;
      side[Json::json_pointer(table["pointer"].value_or(std::string()))] =
          json_of(*table.get("value"));
    }
  }
  return loaded;
}

std::vector<std::filesystem::path> case_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::source_dir() + "/tests/fixtures/cases")) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> loaded = builtin_rules().value();
  return loaded;
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
  EXPECT_GE(case_files().size(), 12U);
}

TEST(AccuracyCases, ExpectedFindingRanksFirst) {
  for (const auto& file : case_files()) {
    SCOPED_TRACE(file.filename().string());
    const Case pair = load_case(file);
    EXPECT_FALSE(pair.top.empty()) << "the case names no top finding";
    const Json report = diff_report({pair.a, "a"}, {pair.b, "b"}, rules());
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
    const Json report = diff_report({snapshot, "a"}, {snapshot, "b"}, rules());
    EXPECT_TRUE(report["findings"].empty()) << ranking(report);
    EXPECT_TRUE(report["changes"].empty()) << report["changes"].dump(2);
    EXPECT_EQ(report_exit_status(report), 0);
  }
}

TEST(AccuracyCases, RecaptureOfTheSameBootFindsNothing) {
  for (const auto& name : testing::fixture_sysroot_names()) {
    SCOPED_TRACE(name);
    const Json again = capture_snapshot(SysRoot(testing::fixture_sysroot(name)));
    const Json report = diff_report({testing::fixture_snapshot(name), "a"}, {again, "b"}, rules());
    EXPECT_EQ(report["status"]["warning"], 0) << ranking(report);
    EXPECT_EQ(report["status"]["critical"], 0) << ranking(report);
    EXPECT_TRUE(report["changes"].empty()) << report["changes"].dump(2);
  }
}

}  // namespace
}  // namespace kdrift
