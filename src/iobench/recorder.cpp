#include "iobench/recorder.h"

namespace kdrift {

Recorder::Recorder(uint64_t start_ns, uint64_t ramp_ns, uint64_t runtime_ns, uint64_t block_size,
                   std::function<void()> measure_start)
    : block_size_(block_size),
      measure_start_ns_(start_ns + ramp_ns),
      end_ns_(start_ns + ramp_ns + runtime_ns),
      next_sample_ns_(start_ns + ramp_ns),
      measure_start_(std::move(measure_start)) {}

void Recorder::advance(uint64_t now_ns) {
  if (!measuring_) {
    measuring_ = true;
    if (measure_start_) measure_start_();
    next_sample_ns_ = measure_start_ns_ + kNanosecondsPerSecond;
    return;
  }
  // Whole seconds only: a partial last second would read as a dip in the whiskers.
  while (now_ns >= next_sample_ns_ && next_sample_ns_ <= end_ns_) {
    per_second_.push_back(window_ios_);
    window_ios_ = 0;
    if (second_latency_.count() > 0) {
      for (size_t i = 0; i < kPerSecondPercentiles.size(); ++i) {
        per_second_latency_[i].push_back(second_latency_.percentile(kPerSecondPercentiles[i]));
      }
      second_latency_.clear();
    }
    next_sample_ns_ += kNanosecondsPerSecond;
  }
  if (next_sample_ns_ > end_ns_) next_sample_ns_ = UINT64_MAX;
}

}  // namespace kdrift
