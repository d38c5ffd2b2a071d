#include "trace/nvme_trace.h"

#include <algorithm>

#include "nvme_stats.h"
#include "nvme_stats.skel.h"
#include "trace/bpf_object.h"
#include "trace/percpu_map.h"

namespace kdrift {
namespace {}  // namespace

const std::vector<TracepointPrograms>& nvme_tracepoints() {
  static const std::vector<TracepointPrograms> tracepoints = {
      {"nvme_setup_cmd", {{"nvme_setup_cmd", 2}}},
      {"nvme_complete_rq", {{"nvme_complete_rq", 1}}},
  };
  return tracepoints;
}

namespace {

const char* queue_type_name(unsigned long long stored) {
  switch (stored) {
    case 1:
      return "default";
    case 2:
      return "read";
    case 3:
      return "poll";
    default:
      return "unknown";
  }
}

}  // namespace

struct NvmeTrace::State {
  BpfObject<nvme_stats> object{{nvme_stats__open, nvme_stats__load, nvme_stats__destroy}};
};

NvmeTrace::NvmeTrace(std::unique_ptr<State> state) : state_(std::move(state)) {}
NvmeTrace::~NvmeTrace() = default;

Result<std::unique_ptr<NvmeTrace>> NvmeTrace::load(const std::vector<TracedDisk>& disks,
                                                   const TraceFeatures& features) {
  std::vector<TracedDisk> namespaces;
  std::copy_if(disks.begin(), disks.end(), std::back_inserter(namespaces),
               [](const TracedDisk& disk) { return disk.name.rfind("nvme", 0) == 0; });
  if (namespaces.empty()) return make_error(ENODEV, "nvme trace: no NVMe disk under the target");
  if (namespaces.size() > KDRIFT_MAX_TARGET_DISKS) namespaces.resize(KDRIFT_MAX_TARGET_DISKS);
  auto state = std::make_unique<State>();
  const auto configure = [&](nvme_stats& skeleton) {
    for (size_t i = 0; i < namespaces.size(); ++i) {
      skeleton.rodata->target_disks[i] = (namespaces[i].major << 20) | namespaces[i].minor;
    }
    skeleton.rodata->target_disk_count = static_cast<uint32_t>(namespaces.size());
  };
  if (auto loaded = state->object.load(nvme_tracepoints(), features, "nvme trace", configure);
      !loaded) {
    return loaded.error();
  }
  return std::unique_ptr<NvmeTrace>(new NvmeTrace(std::move(state)));
}

Status NvmeTrace::attach() {
  if (!zero_per_cpu<kdrift_nvme_counts>(state_->object.skeleton().maps.counts, 1)) {
    return make_error(errno, "nvme trace: zeroing the counters");
  }
  return state_->object.programs().attach();
}

Json NvmeTrace::detach() {
  Json programs = state_->object.programs().detach();
  const auto per_cpu = per_cpu_values<kdrift_nvme_counts>(state_->object.skeleton().maps.counts, 0);
  // Every CPU that saw a queue stored the same type: the largest is it (0 where unseen).
  unsigned long long types[KDRIFT_NVME_MAX_QUEUES] = {};
  for (const auto& cpu : per_cpu) {
    for (size_t queue = 0; queue < KDRIFT_NVME_MAX_QUEUES; ++queue)
      types[queue] = std::max(types[queue], cpu.queue_type[queue]);
  }
  const auto total = sum_counters(per_cpu);
  Json queues = Json::array();
  uint64_t polled = 0;
  uint64_t other = 0;
  for (size_t queue = 0; queue < KDRIFT_NVME_MAX_QUEUES; ++queue) {
    if (total.commands[queue] == 0 && total.completions[queue] == 0) continue;
    const char* type = queue_type_name(types[queue]);
    (std::string(type) == "poll" ? polled : other) += total.completions[queue];
    queues.push_back({{"queue", queue},
                      {"qid", queue + 1},
                      {"type", type},
                      {"commands", total.commands[queue]},
                      {"completions", total.completions[queue]}});
  }
  return {{"nvme",
           {{"queues", std::move(queues)},
            {"poll_queue_completions", polled},
            {"other_queue_completions", other},
            {"beyond_last_queue", total.beyond_last_queue}}},
          {"programs", std::move(programs)}};
}

}  // namespace kdrift
