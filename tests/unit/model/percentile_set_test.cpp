#include "model/percentile_set.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kdrift {
namespace {

TEST(PercentileSet, KeysAndLabelsAreFiosAndPeoplesSpellingOfTheValue) {
  ASSERT_EQ(kTrackedPercentiles.size(), 3u);
  for (const auto& percentile : kTrackedPercentiles) {
    EXPECT_EQ(percentile.key, percentile_key(percentile.value));
    EXPECT_EQ(percentile.label, "p" + percentile_label(std::string(percentile.key)));
    // Every tracked percentile is among those the snapshot records.
    EXPECT_NE(std::find(kReportedPercentiles.begin(), kReportedPercentiles.end(), percentile.value),
              kReportedPercentiles.end());
  }
  EXPECT_EQ(kTrackedPercentiles[2].key, "99.900000");
  EXPECT_EQ(kTrackedPercentiles[2].label, "p99.9");
}

TEST(PercentileSet, PerSecondSamplesFollowTheTrackedSetInOrder) {
  for (size_t i = 0; i < kTrackedPercentiles.size(); ++i)
    EXPECT_EQ(kPerSecondPercentiles[i], kTrackedPercentiles[i].value);
}

TEST(PercentileSet, ByLabelFindsOnlyTrackedLabels) {
  ASSERT_NE(kTrackedPercentiles.by_label("p99"), nullptr);
  EXPECT_EQ(kTrackedPercentiles.by_label("p99")->key, "99.000000");
  EXPECT_EQ(kTrackedPercentiles.by_label("p95"), nullptr);
  EXPECT_EQ(kTrackedPercentiles.by_label("99"), nullptr);
  EXPECT_EQ(kTrackedPercentiles.by_label("iops"), nullptr);
}

TEST(PercentileSet, KeysAndLabelsConvert) {
  EXPECT_EQ(percentile_key(99.99), "99.990000");
  EXPECT_EQ(percentile_label("99.990000"), "99.99");
  EXPECT_EQ(percentile_label("50.000000"), "50");
  EXPECT_EQ(percentile_label("100"), "100");
}

}  // namespace
}  // namespace kdrift
