#include "model/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace kdrift {

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBucketCount; ++i)
    counts_[i] += other.counts_[i];
  total_ += other.total_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LatencyHistogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
}

std::array<uint64_t, 2> LatencyHistogram::bucket_range(size_t bucket) {
  if (bucket < kExactLimit) return {bucket, bucket};
  const size_t index = bucket - kExactLimit;
  const int top_bit = static_cast<int>(index >> kSubBucketBits) + kSubBucketBits + 1;
  const int shift = top_bit - kSubBucketBits;
  const uint64_t sub_bucket =
      (index & ((size_t{1} << kSubBucketBits) - 1)) + (uint64_t{1} << kSubBucketBits);
  const uint64_t low = sub_bucket << shift;
  return {low, low + ((uint64_t{1} << shift) - 1)};
}

uint64_t LatencyHistogram::percentile(double p) const {
  if (total_ == 0) return 0;
  const double clamped = std::clamp(p, 0.0, 100.0);
  const auto rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(clamped / 100.0 * static_cast<double>(total_))));
  uint64_t seen = 0;
  for (size_t bucket = 0; bucket < kBucketCount; ++bucket) {
    seen += counts_[bucket];
    if (seen >= rank) {
      const auto [low, high] = bucket_range(bucket);
      return std::clamp(low + (high - low) / 2, min_, max_);
    }
  }
  return max_;
}

std::vector<LatencyHistogram::Bucket> LatencyHistogram::non_empty() const {
  std::vector<Bucket> buckets;
  for (size_t bucket = 0; bucket < kBucketCount; ++bucket) {
    if (counts_[bucket] == 0) continue;
    const auto [low, high] = bucket_range(bucket);
    buckets.push_back({low, high, counts_[bucket]});
  }
  return buckets;
}

double LatencyHistogram::stddev() const {
  if (total_ == 0) return 0.0;
  const double average = mean();
  const double variance = sum_squares_ / static_cast<double>(total_) - average * average;
  return variance > 0 ? std::sqrt(variance) : 0.0;
}

void LatencyHistogram::record_bucket(size_t bucket, uint64_t count) {
  if (count == 0 || bucket >= kBucketCount) return;
  const auto [low, high] = bucket_range(bucket);
  const uint64_t middle = low + (high - low) / 2;
  counts_[bucket] += count;
  total_ += count;
  sum_ += middle * count;
  sum_squares_ +=
      static_cast<double>(middle) * static_cast<double>(middle) * static_cast<double>(count);
  min_ = std::min(min_, middle);
  max_ = std::max(max_, middle);
}

}  // namespace kdrift
