#include "model/bisect_metric.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(BisectMetric, TheJournalsTextRoundTrips) {
  for (const char* text :
       {"declared", "finding:iommu.strict", "finding:", "probe:quick:io_uring:16:iops",
        "probe:lab:libaio:1:p99.9", "probe:q:io_uring+iopoll:128:p50", "probe:q:sync:1:p99"}) {
    const auto metric = parse_bisect_metric(text);
    ASSERT_TRUE(metric) << text << ": " << metric.error().describe();
    EXPECT_EQ(to_string(*metric), text);
  }
}

TEST(BisectMetric, EachKindIsItsOwnAlternative) {
  EXPECT_TRUE(std::holds_alternative<DeclaredMetric>(*parse_bisect_metric("declared")));
  EXPECT_EQ(std::get<FindingMetric>(*parse_bisect_metric("finding:iommu.strict")).rule_id,
            "iommu.strict");
  EXPECT_EQ(std::get<ProbeMetric>(*parse_bisect_metric("probe:quick:io_uring:16:iops")),
            (ProbeMetric{"quick", "io_uring", 16, "iops"}));
  // A finding named "declared" is a finding.
  EXPECT_TRUE(std::holds_alternative<FindingMetric>(*parse_bisect_metric("finding:declared")));
}

TEST(ProbeMetricParse, RefusesWhatIsNotTheSyntaxWithTheSyntaxAndAnExample) {
  for (const char* text :
       {"", "Declared", "probe", "probe:quick:io_uring:16", "probe:quick:io_uring:16:iops:x",
        "probe::io_uring:16:iops", "probe:quick::16:iops", "probe:quick:io_uring:0:iops",
        "probe:quick:io_uring:-4:iops", "probe:quick:io_uring:16x:iops",
        "probe:quick:io_uring:16:p42", "fio:quick:io_uring:16:iops"}) {
    const auto metric = parse_bisect_metric(text);
    ASSERT_FALSE(metric) << text;
    EXPECT_EQ(metric.error().describe(),
              "--metric " + std::string(text) +
                  ": expected probe:PROFILE:ENGINE:IODEPTH:STAT with STAT iops, p50, p99 or "
                  "p99.9 (probe:quick:io_uring:16:iops)");
  }
}

TEST(ProbeMetricParse, TheDepthIsANumber) {
  // A depth written with leading zeros is the same depth; it is written back plainly.
  const auto metric = parse_probe_metric("probe:quick:io_uring:016:iops");
  ASSERT_TRUE(metric);
  EXPECT_EQ(metric->iodepth, 16);
  EXPECT_EQ(to_string(*metric), "probe:quick:io_uring:16:iops");
}

}  // namespace
}  // namespace kdrift
