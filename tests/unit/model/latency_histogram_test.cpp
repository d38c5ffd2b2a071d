#include "model/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/job_result.h"

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

// Histograms aggregated in BPF arrive as bucket counts: percentiles come out as if the samples
// had been recorded here, to within the bucket's width.
TEST(LatencyHistogram, BucketCountsGiveTheSamePercentiles) {
  LatencyHistogram recorded;
  LatencyHistogram from_buckets;
  std::vector<uint64_t> counts(LatencyHistogram::kBucketCount, 0);
  for (uint64_t value = 1000; value < 2000000; value = value * 11 / 10) {
    recorded.record(value);
    ++counts[LatencyHistogram::bucket_of(value)];
  }
  for (size_t bucket = 0; bucket < counts.size(); ++bucket)
    from_buckets.record_bucket(bucket, counts[bucket]);
  EXPECT_EQ(from_buckets.count(), recorded.count());
  for (const double p : kReportedPercentiles) {
    const auto exact = static_cast<double>(recorded.percentile(p));
    EXPECT_NEAR(static_cast<double>(from_buckets.percentile(p)), exact, exact * 0.004) << p;
  }
  EXPECT_NEAR(from_buckets.mean(), recorded.mean(), recorded.mean() * 0.004);
  EXPECT_EQ(LatencySummary::of(from_buckets).percentile("50.000000"), from_buckets.percentile(50));
}

}  // namespace
}  // namespace kdrift
