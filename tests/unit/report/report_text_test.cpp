#include "report/report_text.h"

#include <gtest/gtest.h>

#include "support/hostile_text.h"
#include "util/text.h"

namespace kdrift {
namespace {

const Json kReport = Json::parse(R"({
  "schema": "kdrift.report/1", "kind": "diff",
  "a": {"label": "before.json", "hostname": "db1", "kernel": "6.1.0-50-amd64"},
  "b": {"label": "after.json", "hostname": "db1", "kernel": "6.12.117-amd64"},
  "status": {"exit_status": 1, "critical": 1, "warning": 0, "info": 1, "regressions": 1},
  "findings": [
    {"rank": 1, "id": "iommu.dma-translation", "severity": "critical", "title": "Storage DMA goes through IOMMU translation",
     "direction": "regressed", "subjects": ["nvme0n1"],
     "evidence": ["iommu.devices[nvme0n1].mode: passthrough → translated-strict"],
     "proof": ["probe.jobs[qd16].trace.iommu.maps_per_io: 0 → 1.0"],
     "explanation": "Every I/O\n  maps its buffer.", "remedy": "iommu=pt | reboot", "score": 2.4},
    {"rank": 2, "id": "kernel.version", "severity": "info", "title": "The kernel changed",
     "direction": "changed", "subjects": [], "evidence": ["kernel.release: 6.1 → 6.12"], "proof": [],
     "explanation": "x", "remedy": "y", "score": 0.1}],
  "probe": {"alpha": 0.01, "jobs": [
    {"name": "io_uring randread 4k qd16", "a": {"iops": 190000}, "b": {"iops": 120000},
     "iops_ratio": 0.63, "iops_ci95": [0.6, 0.66], "p_value": 0.0002, "verdict": "regression",
     "state": "changed", "interval": {"ratio": 0.63, "low": 0.6, "high": 0.66, "confidence": 0.99}},
    {"name": "libaio randread 4k qd1", "verdict": "inconclusive", "state": "inconclusive",
     "decide": {"unit": "seconds", "now": 3, "needed": 5}, "reason": "3 and 3 per-second samples"},
    {"name": "libaio randread 4k qd16", "verdict": "regression", "state": "changed",
     "iops_verdict": "inconclusive",
     "latency": {"99.900000": {"verdict": "regression", "state": "changed"},
                 "50.000000": {"verdict": "inconclusive", "state": "inconclusive"}}}]},
  "changes": {"sysctl": [{"path": "sysctl.\"vm.swappiness\"", "a": 60, "b": 10}]},
  "kernel_config": {"groups": [{"name": "IOMMU", "changed": [{"symbol": "CONFIG_INTEL_IOMMU_DEFAULT_ON", "a": "n", "b": "y"}]}],
                    "other": {"count": 3, "by_prefix": {"DRM": 2, "NET": 1}}}
})");

TEST(ReportText, RendersEveryPartInOrder) {
  const std::string text = render_report_text(kReport, false);
  const auto header = text.find("kdrift diff: before.json (db1, 6.1.0-50-amd64) → after.json");
  const auto first = text.find("1. CRITICAL iommu.dma-translation");
  const auto second = text.find("2. INFO kernel.version");
  const auto probe = text.find("io_uring randread 4k qd16");
  const auto changes = text.find("sysctl.\"vm.swappiness\": 60 → 10");
  const auto config = text.find("CONFIG_INTEL_IOMMU_DEFAULT_ON: n → y");
  for (auto at : {header, first, second, probe, changes, config})
    ASSERT_NE(at, std::string::npos) << text;
  EXPECT_LT(header, first);
  EXPECT_LT(first, second);
  EXPECT_LT(second, probe);
  EXPECT_LT(probe, changes);
  EXPECT_LT(changes, config);
  EXPECT_NE(text.find("why: Every I/O maps its buffer."), std::string::npos) << "re-flowed";
  EXPECT_NE(text.find("0.600–0.660"), std::string::npos);
  EXPECT_NE(text.find("regression (latency p99.9)"), std::string::npos) << text;
  EXPECT_NE(text.find("99 % interval"), std::string::npos) << "the verdict's own level";
  EXPECT_NE(text.find("3 per-second samples; inconclusive: 5 seconds a side would decide it"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("→ exit 1"), std::string::npos);
  EXPECT_NE(text.find("3 other symbols: DRM 2, NET 1"), std::string::npos);
  EXPECT_EQ(text.find("\033["), std::string::npos) << "no colour when asked for none";
  EXPECT_NE(render_report_text(kReport, true).find("\033[1;31mCRITICAL"), std::string::npos);
}

TEST(ReportText, MarkdownEscapesTableCells) {
  const std::string markdown = render_report_markdown(kReport);
  EXPECT_EQ(markdown.rfind("# kdrift diff", 0), 0U);
  EXPECT_NE(markdown.find("| job | A IOPS (median/s) |"), std::string::npos);
  EXPECT_NE(markdown.find("**CRITICAL** `iommu.dma-translation`"), std::string::npos);
  EXPECT_NE(markdown.find("iommu=pt \\| reboot"), std::string::npos) << "rendered as a |";
}

TEST(ReportText, EmptyAndOddReportsRender) {
  const Json clean =
      Json::parse(R"({"kind": "diff", "findings": [], "status": {"exit_status": 0}})");
  EXPECT_NE(render_report_text(clean, false).find("Nothing that matters"), std::string::npos);
  const Json odd = Json::parse(R"({"kind": 3, "findings": [1, {"rank": "x", "evidence": 5}],
      "probe": {"jobs": {}}, "changes": [], "kernel_config": {"groups": 1}})");
  EXPECT_NO_THROW((void)render_report_text(odd, false));
  EXPECT_NO_THROW((void)render_report_markdown(odd));
}

// Every kind of value the document carries from its inputs: snapshot values (host names,
// kernels, changed values, object keys), rule text (title, explanation, remedy) and job names.
Json hostile_report() {
  using testing::hostile_value;
  Json report = kReport;
  report["a"]["hostname"] = hostile_value("host");
  report["b"]["kernel"] = hostile_value("kernel");
  Json& finding = report["findings"][0];
  finding["title"] = hostile_value("title");
  finding["id"] = hostile_value("id");
  finding["severity"] = hostile_value("severity");
  finding["subjects"] = {hostile_value("subject")};
  finding["evidence"] = {hostile_value("evidence")};
  finding["explanation"] = hostile_value("why");
  finding["remedy"] = hostile_value("fix");
  report["probe"]["jobs"][0]["name"] = hostile_value("job");
  report["probe"]["jobs"][1]["reason"] = hostile_value("reason");
  report["changes"][hostile_value("section")] = {
      {{"path", hostile_value("path")}, {"a", hostile_value("old")}, {"b", "new"}}};
  report["kernel_config"]["groups"][0]["name"] = hostile_value("group");
  report["kernel_config"]["other"]["by_prefix"][hostile_value("prefix")] = 1;
  return report;
}

TEST(ReportText, ValuesFromInputsCannotDriveTheTerminal) {
  for (const bool colour : {false, true}) {
    const std::string text = render_report_text(hostile_report(), colour);
    std::string without_colour = text;
    for (const char* code : {"\033[1;31m", "\033[1;33m", "\033[36m", "\033[1m", "\033[0m"}) {
      for (size_t at = without_colour.find(code); at != std::string::npos;
           at = without_colour.find(code)) {
        without_colour.erase(at, std::string_view(code).size());
      }
    }
    EXPECT_EQ(testing::control_bytes(without_colour), std::vector<unsigned>{}) << text;
    EXPECT_NE(text.find("host\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b31m<img"), std::string::npos);
    // The value's line break is shown, so nothing it carries starts a line of its own.
    EXPECT_EQ(text.find("\n| injected"), std::string::npos);
    EXPECT_NE(text.find("\\x0a| injected |"), std::string::npos);
  }
}

TEST(ReportText, MarkdownValuesStayInTheirCellSpanOrLineAndMakeNoHtml) {
  const std::string markdown = render_report_markdown(hostile_report());
  EXPECT_EQ(testing::control_bytes(markdown), std::vector<unsigned>{}) << markdown;
  EXPECT_EQ(markdown.find("<img"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("\n| injected"), std::string::npos) << "no new table row";
  EXPECT_EQ(markdown.find("\n<"), std::string::npos);
  EXPECT_NE(markdown.find("&lt;img src=x onerror=alert(1)&gt;\\\\x0a\\| injected \\|\\`x"),
            std::string::npos)
      << markdown;
  // In a code span nothing is escaped by backslash: its backtick becomes a quote instead.
  EXPECT_NE(markdown.find("`evidence\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b31m&lt;img src=x "
                          "onerror=alert(1)&gt;\\x0a| injected |'x`"),
            std::string::npos)
      << markdown;
  // Each table row holds exactly its columns: a value's | is escaped.
  for (size_t at = markdown.find("\n| "); at != std::string::npos;
       at = markdown.find("\n| ", at + 1)) {
    const std::string row = markdown.substr(at + 1, markdown.find('\n', at + 1) - at - 1);
    size_t cells = 0;
    for (size_t i = 0; i < row.size(); ++i)
      cells += row[i] == '|' && (i == 0 || row[i - 1] != '\\') ? 1 : 0;
    EXPECT_EQ(cells, 8u) << row;
  }
}

}  // namespace
}  // namespace kdrift
