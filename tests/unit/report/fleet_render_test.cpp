#include <gtest/gtest.h>

#include "report/fleet_html.h"
#include "report/fleet_text.h"

namespace kdrift {
namespace {

Json hostile_fleet() {
  const std::string evil = "web\x1b]0;pwned\x07<script>alert(1)</script>\x1b[2J";
  return {
      {"schema", "kdrift.fleet/1"},
      {"tool", {{"name", "kdrift"}, {"version", "0"}}},
      {"hosts", 4},
      {"status", {{"outliers", 1}, {"critical", 1}, {"warning", 0}, {"info", 0}}},
      {"peers", {{{"hardware", evil}, {"kernel", "6.1"}, {"hosts", 4}, {"reference", "a"}}}},
      {"groups",
       {{{"id", "g1"},
         {"hosts", 3},
         {"kernel", "6.1"},
         {"examples", {evil}},
         {"probe", {{"job " + evil, {{"iops_median", 1000.0}, {"hosts", 3}}}}}}}},
      {"outliers",
       {{{"rank", 1},
         {"host", evil},
         {"severity", "critical"},
         {"kernel", "6.1"},
         {"reference", "a"},
         {"deviations",
          {{{"fact", "iommu.mode[nvme]"},
            {"value", evil},
            {"majority", "passthrough"},
            {"majority_hosts", 3},
            {"peer_hosts", 4}}}},
         {"findings",
          {{{"id", "iommu.dma-translation"},
            {"severity", "critical"},
            {"title", evil},
            {"evidence", {evil}}}}}}}},
      {"splits", {{{"fact", "iommu.mode[nvme]"}, {"values", {{{"value", evil}, {"hosts", 1}}}}}}}};
}

TEST(FleetText, OutliersComeFirstAndSnapshotTextCannotReachTheTerminal) {
  const std::string text = render_fleet_text(hostile_fleet());
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  const auto outliers = text.find("Outliers");
  const auto peers = text.find("Peer groups");
  ASSERT_NE(outliers, std::string::npos);
  EXPECT_LT(outliers, peers);
  EXPECT_NE(text.find("iommu.mode[nvme]"), std::string::npos);
  EXPECT_NE(text.find("passthrough, 3 of 4"), std::string::npos);
}

TEST(FleetHtml, EveryValueIsEscapedAndTheProbeIsCharted) {
  const std::string html = render_fleet_html(hostile_fleet());
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("class=\"critical\""), std::string::npos);
}

TEST(FleetText, AnEmptyOrOddDocumentRendersWithoutThrowing) {
  EXPECT_NO_THROW(render_fleet_text(Json::object()));
  EXPECT_NO_THROW(render_fleet_html(Json::object()));
  EXPECT_NO_THROW(
      render_fleet_text(Json{{"outliers", "x"}, {"groups", 3}, {"comparison", {{"probe", 1}}}}));
}

}  // namespace
}  // namespace kdrift
