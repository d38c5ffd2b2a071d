#include "probe/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace kdrift {
namespace {

TEST(LatencyHistogram, BucketsCoverEveryValueContiguously) {
  uint64_t expected_low = 0;
  for (size_t bucket = 0; bucket < LatencyHistogram::kBucketCount; ++bucket) {
    const auto [low, high] = LatencyHistogram::bucket_range(bucket);
    ASSERT_EQ(low, expected_low) << bucket;
    ASSERT_LE(low, high);
    ASSERT_EQ(LatencyHistogram::bucket_of(low), bucket);
    ASSERT_EQ(LatencyHistogram::bucket_of(high), bucket);
    if (high == UINT64_MAX) {
      EXPECT_EQ(bucket, LatencyHistogram::kBucketCount - 1);
      return;
    }
    expected_low = high + 1;
  }
  FAIL() << "buckets end before UINT64_MAX";
}

TEST(LatencyHistogram, PercentilesWithinOnePercentOfExact) {
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> latency(std::log(80000.0), 0.8);  // ~80 us, long tail
  std::vector<uint64_t> samples(200000);
  LatencyHistogram histogram;
  for (auto& sample : samples) {
    sample = static_cast<uint64_t>(latency(random));
    histogram.record(sample);
  }
  std::sort(samples.begin(), samples.end());
  for (const double p : kReportedPercentiles) {
    const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * samples.size()));
    const double exact = static_cast<double>(samples[rank - 1]);
    EXPECT_NEAR(static_cast<double>(histogram.percentile(p)), exact, exact * 0.01) << p;
  }
  EXPECT_EQ(histogram.count(), samples.size());
  EXPECT_EQ(histogram.min(), samples.front());
  EXPECT_EQ(histogram.max(), samples.back());
}

TEST(LatencyHistogram, SmallValuesAreExactAndEmptyIsZero) {
  LatencyHistogram histogram;
  EXPECT_EQ(histogram.percentile(50), 0u);
  for (uint64_t v : {3, 3, 3, 200})
    histogram.record(v);
  EXPECT_EQ(histogram.percentile(50), 3u);
  EXPECT_EQ(histogram.percentile(100), 200u);
}

TEST(LatencyHistogram, MergeAddsCounts) {
  LatencyHistogram a;
  LatencyHistogram b;
  a.record(1000);
  b.record(3000);
  b.record(5000);
  a.merge(b);
  EXPECT_EQ(a.count(), 3u);
  EXPECT_EQ(a.max(), 5000u);
  EXPECT_EQ(a.min(), 1000u);
}

}  // namespace
}  // namespace kdrift
