#pragma once
// Latency histogram with bounded relative error: exact below 256 ns, then every power of two split
// into 128 equal buckets, so a reported percentile is within 0.4 % of the true sample (the
// bucket midpoint is at most half a bucket, 1/256 of the value, away). Recording is two shifts
// and an increment: cheap enough for the probe's hot path.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/percentile_set.h"

namespace kdrift {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr uint64_t kExactLimit = uint64_t{2} << kSubBucketBits;  // 256
  static constexpr size_t kBucketCount =
      kExactLimit + (64 - (kSubBucketBits + 1)) * (size_t{1} << kSubBucketBits);

  LatencyHistogram() : counts_(kBucketCount, 0) {}

  void record(uint64_t nanoseconds) {
    ++counts_[bucket_of(nanoseconds)];
    ++total_;
    sum_ += nanoseconds;
    sum_squares_ += static_cast<double>(nanoseconds) * static_cast<double>(nanoseconds);
    if (nanoseconds < min_) min_ = nanoseconds;
    if (nanoseconds > max_) max_ = nanoseconds;
  }
  void merge(const LatencyHistogram& other);
  // Back to empty without giving the buckets back: the probe reuses one histogram per second.
  void clear();
  // Adds count samples known only by their bucket (histograms aggregated elsewhere, in BPF):
  // each counts as its bucket's midpoint for the mean, min and max.
  void record_bucket(size_t bucket, uint64_t count);

  uint64_t count() const { return total_; }
  uint64_t min() const { return total_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  double mean() const {
    return total_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(total_);
  }
  // Population standard deviation, as fio reports it.
  double stddev() const;
  // Nearest-rank percentile (the smallest recorded value with at least p % of samples at or
  // below it), reported as its bucket's midpoint clamped to [min, max]. 0 when empty.
  uint64_t percentile(double p) const;

  static size_t bucket_of(uint64_t value) {
    if (value < kExactLimit) return static_cast<size_t>(value);
    const int top_bit = 63 - __builtin_clzll(value);
    const int shift = top_bit - kSubBucketBits;
    const uint64_t sub_bucket = (value >> shift) - (uint64_t{1} << kSubBucketBits);
    return kExactLimit +
           static_cast<size_t>(top_bit - (kSubBucketBits + 1)) * (size_t{1} << kSubBucketBits) +
           static_cast<size_t>(sub_bucket);
  }
  // [low, high] of the values a bucket holds.
  static std::array<uint64_t, 2> bucket_range(size_t bucket);

  // Non-empty buckets as (low, high, count), for biolatency-style text and JSON.
  struct Bucket {
    uint64_t low;
    uint64_t high;
    uint64_t count;
  };
  std::vector<Bucket> non_empty() const;

 private:
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  uint64_t sum_ = 0;
  double sum_squares_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace kdrift
