#pragma once
// The io_uring and IOMMU programs (probes/io_stats.bpf.c): io_uring submissions, completions
// and punts to io-wq workers for one process (or all), and IOMMU map/unmap calls for the whole
// system (their tracepoints name no device).

#include <cstdint>
#include <memory>
#include <vector>

#include "snapshot/snapshot.h"
#include "trace/kernel_features.h"
#include "trace/program_choice.h"
#include "util/result.h"

namespace kdrift {

// Every tracepoint the io programs attach to, with the program variant per argument layout
// (kdrift --version --verbose shows which one this kernel gets).
const std::vector<TracepointPrograms>& io_tracepoints();

class IoTrace {
 public:
  // tgid 0: every process.
  static Result<std::unique_ptr<IoTrace>> load(uint32_t tgid, const TraceFeatures& features);
  IoTrace(const IoTrace&) = delete;
  IoTrace& operator=(const IoTrace&) = delete;
  ~IoTrace();

  Status attach();
  // {"io_uring": {submissions, completions, punts, punts_per_io},
  //  "iommu": {maps, map_bytes, unmaps, unmap_bytes}, "programs": {...}}; a part whose
  // tracepoints this kernel lacks is left out, its programs say why.
  Json detach();

 private:
  struct State;
  explicit IoTrace(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace kdrift
