#pragma once
// What a job measured, accumulated on the hot path: latency histograms per direction, counts,
// per-second completion samples, submit and reap calls. The engine hands it one timestamp per
// batch; the recorder decides whether the run is still ramping, measuring or over.

#include <time.h>

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "model/latency_histogram.h"

namespace kdrift {

// The probe's clock counts nanoseconds.
inline constexpr uint64_t kNanosecondsPerSecond = 1'000'000'000;

inline uint64_t monotonic_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * kNanosecondsPerSecond +
         static_cast<uint64_t>(now.tv_nsec);
}

struct DirectionStats {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  LatencyHistogram submission;  // slat: prepared -> submit call returned
  LatencyHistogram completion;  // clat: submit call returned -> completion seen
  LatencyHistogram total;       // lat: prepared -> completion seen
};

class Recorder {
 public:
  // measure_start is called once, when the ramp ends (from the engine's thread).
  Recorder(uint64_t start_ns, uint64_t ramp_ns, uint64_t runtime_ns, uint64_t block_size,
           std::function<void()> measure_start);

  // True once the measured window is over: the engine stops submitting and drains.
  bool finished(uint64_t now_ns) {
    if (now_ns >= next_sample_ns_) advance(now_ns);
    return now_ns >= end_ns_;
  }

  void completed(bool write, uint64_t prepared_ns, uint64_t submitted_ns, uint64_t now_ns) {
    ++issued_completions_;
    if (!measuring_) return;
    if (now_ns >= end_ns_) return;  // drained after the window: counted by diskstats only
    DirectionStats& stats = write ? write_ : read_;
    ++stats.ios;
    stats.bytes += block_size_;
    stats.submission.record(submitted_ns - prepared_ns);
    stats.completion.record(now_ns - submitted_ns);
    stats.total.record(now_ns - prepared_ns);
    second_latency_.record(now_ns - prepared_ns);
    ++window_ios_;
  }
  void submit_call(uint64_t ios) {
    ++submit_calls_;
    submitted_ios_ += ios;
  }
  void reap_call() { ++reap_calls_; }

  const DirectionStats& read() const { return read_; }
  const DirectionStats& write() const { return write_; }
  // Completions in each whole second of the measured window.
  const std::vector<uint64_t>& per_second() const { return per_second_; }
  // Total latency percentiles (kPerSecondPercentiles) of each whole second that completed I/O.
  const std::array<std::vector<uint64_t>, kPerSecondPercentiles.size()>& per_second_latency()
      const {
    return per_second_latency_;
  }
  uint64_t submit_calls() const { return submit_calls_; }
  uint64_t submitted_ios() const { return submitted_ios_; }
  uint64_t reap_calls() const { return reap_calls_; }
  // Every completion, ramp and drain included: what the device should have seen.
  uint64_t all_completions() const { return issued_completions_; }
  uint64_t measured_ns() const { return end_ns_ - measure_start_ns_; }
  bool measuring() const { return measuring_; }

 private:
  void advance(uint64_t now_ns);

  uint64_t block_size_;
  uint64_t measure_start_ns_;
  uint64_t end_ns_;
  uint64_t next_sample_ns_;
  bool measuring_ = false;
  std::function<void()> measure_start_;
  DirectionStats read_;
  DirectionStats write_;
  std::vector<uint64_t> per_second_;
  LatencyHistogram second_latency_;
  std::array<std::vector<uint64_t>, kPerSecondPercentiles.size()> per_second_latency_;
  uint64_t window_ios_ = 0;
  uint64_t issued_completions_ = 0;
  uint64_t submit_calls_ = 0;
  uint64_t submitted_ios_ = 0;
  uint64_t reap_calls_ = 0;
};

}  // namespace kdrift
