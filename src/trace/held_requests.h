#pragma once
// The requests the block programs still hold when tracing stops: issued, and never seen to
// complete. Each is either still in flight or completed without running a program (see
// probes/block_stats.bpf.c's count_lost); the device's own in-flight count tells which, when the
// caller read it as zero: every request issued before that read had completed by then.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "block_stats.h"

namespace kdrift {

struct HeldRequests {
  // Completed unseen, by kdrift_dir: how many, and the bytes their issues asked for.
  std::array<uint64_t, KDRIFT_DIRS> completed{};
  std::array<uint64_t, KDRIFT_DIRS> completed_bytes{};
  // Not known to have completed.
  uint64_t in_flight = 0;
};

// all_completed_before_ns: a CLOCK_MONOTONIC time (the programs' clock) by which the device had
// completed every request issued before it, or nullopt when the caller cannot say. Entries
// never issued (still queued or merged away unseen) are neither; a requeued one waits for its
// next issue, so it is in flight whatever the device's count said.
HeldRequests settle_held_requests(const std::vector<kdrift_request_start>& held,
                                  std::optional<uint64_t> all_completed_before_ns);

}  // namespace kdrift
