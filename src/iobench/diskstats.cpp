#include "iobench/diskstats.h"

#include "iobench/recorder.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {

Result<DiskStats> read_disk_stats(const SysRoot& root, const BlockDeviceRef& device) {
  const std::string path = "/sys/dev/block/" + std::to_string(device.major) + ":" +
                           std::to_string(device.minor) + "/stat";
  DiskStats stats;
  stats.read_ns = monotonic_ns();
  auto text = root.read(path);
  if (!text) return text.error();
  for (const auto& field : split_whitespace(*text)) {
    auto value = parse_uint(field);
    if (!value) return content_error(path + ": " + quote_value(field) + " is not a counter");
    stats.fields.push_back(*value);
  }
  if (stats.fields.size() < 11) return content_error(path + ": fewer than 11 counters");
  return stats;
}

std::optional<uint64_t> all_completed_before(const DiskStats& stats) {
  constexpr size_t kInFlight = 8;
  if (stats.fields.size() <= kInFlight || stats.fields[kInFlight] != 0) return std::nullopt;
  return stats.read_ns;
}

Json disk_stats_delta(const DiskStats& before, const DiskStats& after, const std::string& name,
                      std::optional<uint64_t> probe_ios) {
  auto delta = [&](size_t index) { return after.fields[index] - before.fields[index]; };
  const uint64_t reads = delta(0);
  const uint64_t writes = delta(4);
  const uint64_t merges = delta(1) + delta(5);
  const uint64_t sectors = delta(2) + delta(6);
  const uint64_t requests = reads + writes;
  Json out = {{"device", name},
              {"reads", reads},
              {"read_merges", delta(1)},
              {"read_sectors", delta(2)},
              {"read_ticks_ms", delta(3)},
              {"writes", writes},
              {"write_merges", delta(5)},
              {"write_sectors", delta(6)},
              {"write_ticks_ms", delta(7)},
              {"io_ticks_ms", delta(9)},
              {"time_in_queue_ms", delta(10)}};
  if (probe_ios) out["probe_ios"] = *probe_ios;
  out["avg_request_bytes"] = 512 * ratio(sectors, requests);
  // Share of the I/Os that reached the queue and were merged into another request.
  out["merge_ratio"] = ratio(merges, requests + merges);
  return out;
}

Json trace_diskstats(const Json& delta) {
  const auto field = [&](const char* name) { return delta.value(name, uint64_t{0}); };
  return {{"ios", field("reads") + field("writes")},
          {"merges", field("read_merges") + field("write_merges")},
          {"sectors", field("read_sectors") + field("write_sectors")}};
}

}  // namespace kdrift
