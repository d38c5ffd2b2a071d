#include "report/report_text.h"

#include <gtest/gtest.h>

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
     "iops_ratio": 0.63, "iops_ci95": [0.6, 0.66], "p_value": 0.0002, "verdict": "regression"},
    {"name": "libaio randread 4k qd1", "verdict": "insufficient-samples", "reason": "3 and 3 per-second samples"},
    {"name": "libaio randread 4k qd16", "verdict": "regression", "iops_verdict": "no-significant-change",
     "latency": {"99.900000": {"verdict": "regression"}, "50.000000": {"verdict": "no-significant-change"}}}]},
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
  EXPECT_NE(markdown.find("iommu=pt | reboot"), std::string::npos);
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

}  // namespace
}  // namespace kdrift
