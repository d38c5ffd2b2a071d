#pragma once
// Latency percentiles as kdrift names them: fio's keys in the snapshot ("99.900000"), people's
// labels in reports ("p99.9"), and the one set of percentiles the tools track.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace kdrift {

// fio's default percentile list, which already holds the seeds' 10/50/90/95/99/99.9.
inline constexpr std::array<double, 17> kReportedPercentiles = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

// fio's key for a percentile: 99.9 -> "99.900000"; and back, as people write it: "99.9".
std::string percentile_key(double percentile);
std::string percentile_label(std::string key);

struct TrackedPercentile {
  double value;            // 99.9
  std::string_view key;    // fio's key in the snapshot: "99.900000"
  std::string_view label;  // as reports and --metric name it: "p99.9"
};

// The percentiles the probe samples every second, diff tests like IOPS, the reports show and
// chart, and bisect's --metric may name. One list, so that none of them can track one the
// others lack.
class PercentileSet {
 public:
  static constexpr std::size_t kSize = 3;
  constexpr explicit PercentileSet(std::array<TrackedPercentile, kSize> items) : items_(items) {}

  constexpr std::size_t size() const { return kSize; }
  constexpr const TrackedPercentile& operator[](std::size_t i) const { return items_[i]; }
  constexpr auto begin() const { return items_.begin(); }
  constexpr auto end() const { return items_.end(); }
  // The percentile a label ("p99") names; null when the set has none by that label.
  const TrackedPercentile* by_label(std::string_view label) const;

 private:
  std::array<TrackedPercentile, kSize> items_;
};

inline constexpr PercentileSet kTrackedPercentiles({{
    {50, "50.000000", "p50"},
    {99, "99.000000", "p99"},
    {99.9, "99.900000", "p99.9"},
}});

// Sampled every second of a probe job, so that a latency change can be tested like an IOPS one.
inline constexpr std::array<double, PercentileSet::kSize> kPerSecondPercentiles = {
    kTrackedPercentiles[0].value, kTrackedPercentiles[1].value, kTrackedPercentiles[2].value};

}  // namespace kdrift
