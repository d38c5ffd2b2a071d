// The BPF programs count latencies into buckets that src/trace hands to LatencyHistogram by
// index (record_bucket): both sides must agree on what every index holds, not only on how many
// there are. The kernel side's layout is the one probes/block_stats.h's macros define.

#include <gtest/gtest.h>

#include <cstdint>

#include "block_stats.h"
#include "model/latency_histogram.h"

namespace kdrift {
namespace {

static_assert(KDRIFT_LAT_SUB_BITS == LatencyHistogram::kSubBucketBits);
static_assert(KDRIFT_LAT_EXACT == LatencyHistogram::kExactLimit);
static_assert(KDRIFT_LAT_BUCKETS <= LatencyHistogram::kBucketCount);

// [low, high] of a BPF bucket, from the macros as block_stats.bpf.c's latency_bucket() fills
// them: values below KDRIFT_LAT_EXACT exactly, then 2^SUB_BITS linear sub-buckets per power of
// two from 2^(SUB_BITS + 1) up to 2^(MAX_LOG2 + 1) - 1.
std::array<uint64_t, 2> bpf_bucket_range(uint64_t bucket) {
  if (bucket < KDRIFT_LAT_EXACT) return {bucket, bucket};
  const uint64_t index = bucket - KDRIFT_LAT_EXACT;
  const uint64_t power = index / (1U << KDRIFT_LAT_SUB_BITS) + KDRIFT_LAT_SUB_BITS + 1;
  const uint64_t sub = index % (1U << KDRIFT_LAT_SUB_BITS);
  const uint64_t shift = power - KDRIFT_LAT_SUB_BITS;
  const uint64_t low = ((uint64_t{1} << KDRIFT_LAT_SUB_BITS) + sub) << shift;
  return {low, low + (uint64_t{1} << shift) - 1};
}

TEST(LatencyLayout, EveryBpfBucketHoldsWhatTheSameHistogramBucketHolds) {
  for (uint64_t bucket = 0; bucket < KDRIFT_LAT_BUCKETS; ++bucket) {
    const auto [low, high] = bpf_bucket_range(bucket);
    const auto range = LatencyHistogram::bucket_range(bucket);
    ASSERT_EQ(range[0], low) << "bucket " << bucket;
    ASSERT_EQ(range[1], high) << "bucket " << bucket;
    ASSERT_EQ(LatencyHistogram::bucket_of(low), bucket);
    ASSERT_EQ(LatencyHistogram::bucket_of(high), bucket);
  }
}

TEST(LatencyLayout, TheBpfBucketsEndWhereTheirLargestPowerOfTwoEnds) {
  const uint64_t past_last = uint64_t{1} << (KDRIFT_LAT_MAX_LOG2 + 1);
  EXPECT_EQ(bpf_bucket_range(KDRIFT_LAT_BUCKETS - 1)[1], past_last - 1);
  // Longer latencies are folded into the last BPF bucket; the histogram would have gone on.
  EXPECT_EQ(LatencyHistogram::bucket_of(past_last - 1), size_t{KDRIFT_LAT_BUCKETS} - 1);
  EXPECT_EQ(LatencyHistogram::bucket_of(past_last), size_t{KDRIFT_LAT_BUCKETS});
}

}  // namespace
}  // namespace kdrift
