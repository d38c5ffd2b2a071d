#include "trace/io_trace.h"

#include <bpf/libbpf.h>

#include <vector>

#include "io_stats.h"
#include "io_stats.skel.h"
#include "trace/bpf_object.h"
#include "trace/percpu_map.h"
#include "util/units.h"

namespace kdrift {
namespace {

constexpr int kAny = ProgramVariant::kAnyArguments;

}  // namespace

const std::vector<TracepointPrograms>& io_tracepoints() {
  static const std::vector<TracepointPrograms> tracepoints = {
      {"io_uring_submit_req", {{"uring_submit_req", kAny}}},
      {"io_uring_submit_sqe", {{"uring_submit_sqe", kAny}}},
      {"io_uring_complete", {{"uring_complete", kAny}}},
      {"io_uring_queue_async_work", {{"uring_queue_async_work", kAny}}},
      {"map", {{"iommu_map", 3}}},
      {"unmap", {{"iommu_unmap", 3}}},
  };
  return tracepoints;
}

namespace {

bool attached(const Json& programs, std::initializer_list<const char*> tracepoints) {
  for (const char* tracepoint : tracepoints) {
    if (programs.contains(tracepoint) && programs[tracepoint].contains("program")) return true;
  }
  return false;
}

}  // namespace

struct IoTrace::State {
  BpfObject<io_stats> object{{io_stats__open, io_stats__load, io_stats__destroy}};
};

IoTrace::IoTrace(std::unique_ptr<State> state) : state_(std::move(state)) {}
IoTrace::~IoTrace() = default;

Result<std::unique_ptr<IoTrace>> IoTrace::load(uint32_t tgid, const TraceFeatures& features) {
  auto state = std::make_unique<State>();
  const auto configure = [tgid](io_stats& skeleton) { skeleton.rodata->target_tgid = tgid; };
  if (auto loaded = state->object.load(io_tracepoints(), features, "io trace", configure);
      !loaded) {
    return loaded.error();
  }
  return std::unique_ptr<IoTrace>(new IoTrace(std::move(state)));
}

Status IoTrace::attach() {
  if (!zero_per_cpu<kdrift_io_counts>(state_->object.skeleton().maps.counts, 1)) {
    return make_error(errno, "io trace: zeroing the counters");
  }
  return state_->object.programs().attach();
}

Json IoTrace::detach() {
  Json programs = state_->object.programs().detach();
  const auto total =
      sum_counters(per_cpu_values<kdrift_io_counts>(state_->object.skeleton().maps.counts, 0));
  Json out = {{"programs", std::move(programs)}};
  if (attached(out["programs"], {"io_uring_submit_req", "io_uring_submit_sqe"})) {
    out["io_uring"] = {{"submissions", total.uring_submissions},
                       {"completions", total.uring_completions},
                       {"punts", total.uring_punts},
                       {"punts_per_io", ratio(total.uring_punts, total.uring_submissions)}};
  }
  if (attached(out["programs"], {"map"})) {
    out["iommu"] = {{"maps", total.iommu_maps},
                    {"map_bytes", total.iommu_map_bytes},
                    {"unmaps", total.iommu_unmaps},
                    {"unmap_bytes", total.iommu_unmap_bytes},
                    {"scope", "system-wide: the iommu tracepoints name no device"}};
  }
  return out;
}

}  // namespace kdrift
