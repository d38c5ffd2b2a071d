#pragma once
// /sys/dev/block/<M:m>/stat, the counters iostat reads, and their change over a span: what the
// device itself says it did, beside what the probe and the trace counted.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iobench/block_device.h"
#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct DiskStats {
  std::vector<uint64_t> fields;
  uint64_t read_ns = 0;  // CLOCK_MONOTONIC, taken just before the file was read
};

Result<DiskStats> read_disk_stats(const SysRoot& root, const BlockDeviceRef& device);

// The time before which the device had completed every request it was given, when the read
// found none in flight (the 9th counter): the trace's programs can then count the requests they
// saw issued before it and never saw complete as completions they missed. nullopt otherwise.
std::optional<uint64_t> all_completed_before(const DiskStats& stats);

// {device, reads, read_merges, ..., avg_request_bytes, merge_ratio}, and probe_ios (the I/Os the
// probe completed in the span) when given.
Json disk_stats_delta(const DiskStats& before, const DiskStats& after, const std::string& name,
                      std::optional<uint64_t> probe_ios);

// The delta under the names outside scripts compare with trace.block: {ios, merges, sectors}
// (reads and writes).
Json trace_diskstats(const Json& delta);

}  // namespace kdrift
