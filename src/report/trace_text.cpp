#include "report/trace_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "report/text_table.h"

namespace kdrift {
namespace {

// The log-linear buckets folded into power-of-two microsecond ranges, as biolatency prints.
void render_histogram(std::ostream& out, const Json& buckets) {
  std::map<int, uint64_t> by_power;
  for (const auto& bucket : buckets) {
    const uint64_t micros = count_at(bucket, {"low"}).value_or(0) / 1000;
    int power = 0;
    while ((uint64_t{2} << power) <= micros)
      ++power;
    by_power[micros == 0 ? -1 : power] += count_at(bucket, {"count"}).value_or(0);
  }
  if (by_power.empty()) return;
  uint64_t most = 0;
  for (const auto& [power, count] : by_power)
    most = std::max(most, count);
  constexpr int kWidth = 40;
  char line[160];
  (void)std::snprintf(line, sizeof line, "%24s : %-10s %s\n", "usecs", "count", "distribution");
  out << line;
  for (int power = by_power.begin()->first; power <= by_power.rbegin()->first; ++power) {
    const uint64_t count = by_power.count(power) != 0 ? by_power[power] : 0;
    const uint64_t low = power < 0 ? 0 : uint64_t{1} << power;
    const uint64_t high = power < 0 ? 1 : (uint64_t{2} << power) - 1;
    const auto stars = static_cast<int>(most == 0 ? 0 : count * kWidth / most);
    (void)std::snprintf(line, sizeof line, "%10llu -> %-10llu : %-10llu |%-*s|\n",
                        static_cast<unsigned long long>(low), static_cast<unsigned long long>(high),
                        static_cast<unsigned long long>(count), kWidth,
                        std::string(static_cast<size_t>(stars), '*').c_str());
    out << line;
  }
}

}  // namespace

std::string render_trace_text(const Json& job) {
  const Json* block = at(job, {"trace", "block"});
  if (block == nullptr || !block->is_object()) return "";
  std::ostringstream out;
  char line[256];
  out << text_at(job, {"name"}) << ": " << count_at(*block, {"bios_queued"}).value_or(0) << " bios";
  if (at(*block, {"requests_completed"}) != nullptr) {
    (void)std::snprintf(
        line, sizeof line, ", %llu requests completed (%.1f KiB each, %.0f %% merged, %llu split)",
        static_cast<unsigned long long>(count_at(*block, {"requests_completed"}).value_or(0)),
        number_at(*block, {"avg_request_bytes"}).value_or(0) / 1024,
        100 * number_at(*block, {"merge_ratio"}).value_or(0),
        static_cast<unsigned long long>(count_at(*block, {"splits"}).value_or(0)));
    out << line;
    const uint64_t polled = count_at(*block, {"issued_by_queue_type", "poll"}).value_or(0);
    if (polled > 0) out << ", " << polled << " on poll queues";
  } else {
    out << " (" << text_at(*block, {"unavailable", "requests"}) << ")";
  }
  if (const Json* disk = at(job, {"trace", "diskstats"})) {
    out << "; the device counted " << count_at(*disk, {"ios"}).value_or(0) << " I/Os and "
        << count_at(*disk, {"merges"}).value_or(0) << " merges";
  }
  out << "\n";
  if (const Json* uring = at(job, {"trace", "io_uring"}); uring != nullptr && uring->is_object()) {
    (void)std::snprintf(
        line, sizeof line,
        "  io_uring: %llu submissions, %llu punted to io-wq workers (%.2f per I/O)\n",
        static_cast<unsigned long long>(count_at(*uring, {"submissions"}).value_or(0)),
        static_cast<unsigned long long>(count_at(*uring, {"punts"}).value_or(0)),
        number_at(*uring, {"punts_per_io"}).value_or(0));
    out << line;
  }
  if (const Json* iommu = at(job, {"trace", "iommu"}); iommu != nullptr && iommu->is_object()) {
    (void)std::snprintf(line, sizeof line, "  IOMMU: %llu mappings, %.2f per I/O (system-wide)\n",
                        static_cast<unsigned long long>(count_at(*iommu, {"maps"}).value_or(0)),
                        number_at(*iommu, {"maps_per_io"}).value_or(0));
    out << line;
  }
  if (const Json* buckets = at(*block, {"device_latency_ns", "buckets"});
      buckets != nullptr && buckets->is_array() && !buckets->empty()) {
    out << "  device latency (issue to completion):\n";
    render_histogram(out, *buckets);
  }
  return out.str();
}

}  // namespace kdrift
