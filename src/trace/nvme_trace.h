#pragma once
// The NVMe driver's own tracepoints (probes/nvme_stats.bpf.c): commands and completions per
// hardware queue of the target's NVMe namespaces, with each queue's type (default, read, poll),
// so a report can tell whether IOPOLL completions really came from poll queues.

#include <memory>
#include <vector>

#include "snapshot/snapshot.h"
#include "trace/block_trace.h"
#include "trace/kernel_features.h"
#include "trace/program_choice.h"
#include "util/result.h"

namespace kdrift {

// Every tracepoint the nvme programs attach to, with the program variant per argument layout
// (kdrift --version --verbose shows which one this kernel gets).
const std::vector<TracepointPrograms>& nvme_tracepoints();

class NvmeTrace {
 public:
  static Result<std::unique_ptr<NvmeTrace>> load(const std::vector<TracedDisk>& disks,
                                                 const TraceFeatures& features);
  NvmeTrace(const NvmeTrace&) = delete;
  NvmeTrace& operator=(const NvmeTrace&) = delete;
  ~NvmeTrace();

  Status attach();
  // {"nvme": {queues[{queue, qid, type, commands, completions}], poll_queue_completions,
  //  other_queue_completions, beyond_last_queue}, "programs": {...}}
  Json detach();

 private:
  struct State;
  explicit NvmeTrace(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace kdrift
