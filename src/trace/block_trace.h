#pragma once
// The block-layer programs (probes/block_stats.bpf.c) for a set of disks: loaded once, attached
// around each measured job, read when detached. Counts, bytes, merges, splits, request sizes,
// depth at issue and latency histograms come out as the "block" part of a trace section, with
// each program's own cost (run count and run time from BPF_ENABLE_STATS).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "trace/kernel_features.h"
#include "trace/program_choice.h"
#include "util/result.h"

namespace kdrift {

// Every tracepoint the block programs attach to, with the program variant per argument layout
// (kdrift --version --verbose shows which one this kernel gets).
const std::vector<TracepointPrograms>& block_tracepoints();

struct TracedDisk {
  unsigned major = 0;
  unsigned minor = 0;  // the whole disk's: partitions are counted with their disk
  std::string name;
  bool request_based = true;  // blk-mq; false for bio-based drivers (zram, brd)
};

class BlockTrace {
 public:
  // Loads every program the kernel supports; an error (naming each program's reason) only
  // when none can load, or BPF itself is refused (no CAP_BPF, lockdown).
  static Result<std::unique_ptr<BlockTrace>> load(const std::vector<TracedDisk>& disks,
                                                  const TraceFeatures& features);
  BlockTrace(const BlockTrace&) = delete;
  BlockTrace& operator=(const BlockTrace&) = delete;
  ~BlockTrace();

  // Zeroes the maps and attaches the programs.
  Status attach();
  // Detaches and reads: {"block": {...}, "programs": {...}}. all_completed_before_ns: when the
  // caller knows the device had completed every request issued before that CLOCK_MONOTONIC time
  // (nothing in flight in a diskstats read taken after it), the requests the programs saw issued
  // before it and never saw complete are counted as completions they missed, not as in flight.
  Json detach(std::optional<uint64_t> all_completed_before_ns);

 private:
  struct State;
  explicit BlockTrace(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace kdrift
