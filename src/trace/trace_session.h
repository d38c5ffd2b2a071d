#pragma once
// Everything kdrift traces around one span (a probe job, a `kdrift trace` wait): the block
// programs for the target's disks, and the io_uring and IOMMU counts. Each part loads on its
// own; a part that cannot says why, and only when none loads is there no trace at all.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "trace/block_trace.h"
#include "trace/io_trace.h"
#include "trace/kernel_features.h"
#include "trace/nvme_trace.h"
#include "util/result.h"

namespace kdrift {

class TraceSession {
 public:
  // tgid: the process whose io_uring events count (0: every process). An error, with every
  // part's reason, when nothing could load.
  static Result<std::unique_ptr<TraceSession>> open(const std::vector<TracedDisk>& disks,
                                                    uint32_t tgid, const TraceFeatures& features);

  Status attach();
  // {block?, io_uring?, iommu?, nvme?, programs{tracepoint: ...}, unavailable?{block|io|nvme:
  // why}}, with
  // iommu.maps_per_io when the block part counted the I/Os. all_completed_before_ns: as
  // BlockTrace::detach.
  Json detach(std::optional<uint64_t> all_completed_before_ns);

 private:
  std::unique_ptr<BlockTrace> block_;
  std::unique_ptr<IoTrace> io_;
  std::unique_ptr<NvmeTrace> nvme_;
  Json unavailable_ = Json::object();
};

}  // namespace kdrift
