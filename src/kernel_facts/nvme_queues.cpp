#include "kernel_facts/nvme_queues.h"

#include <algorithm>
#include <string>

#include "snapshot/json_access.h"

namespace kdrift {
namespace {

// NVMe queue identifiers are 16 bits: a larger count is not one a controller reports.
constexpr uint64_t kMaxIoQueues = 65535;

Result<uint64_t> io_queues_in_use(const NvmeQueueFacts& facts) {
  if (facts.hardware_queues) return *facts.hardware_queues;
  if (facts.queue_count && *facts.queue_count >= 1) return *facts.queue_count - 1;
  return content_error("no namespace lists its hardware queues (mq/), and no queue_count");
}

// The I/O queues of the first namespace whose block device lists hardware queues, and that
// list's path in the snapshot.
std::optional<std::pair<uint64_t, std::string>> snapshot_hardware_queues(const Json& snapshot,
                                                                         const Json& controller) {
  const Json* namespaces = object_member(controller, "namespaces");
  if (namespaces == nullptr) return std::nullopt;
  for (const auto& [name, ns] : namespaces->items()) {
    const Json& queues = array_at(snapshot, {"block", "devices", name, "mq"});
    if (!queues.empty()) return std::pair{queues.size(), "block.devices." + name + ".mq"};
  }
  return std::nullopt;
}

}  // namespace

Result<Json> derive_nvme_queue_split(const NvmeQueueFacts& facts) {
  if (!facts.poll_queues || !facts.write_queues) {
    return content_error("the nvme module's poll_queues and write_queues are not both known");
  }
  const auto total = io_queues_in_use(facts);
  if (!total) return total.error();
  if (*total == 0 || *total > kMaxIoQueues) {
    return content_error(std::to_string(*total) + " I/O queues: not a split the driver sets up");
  }
  const uint64_t poll = std::min(*facts.poll_queues, *total - 1);
  const uint64_t interrupt = *total - poll;
  const uint64_t write = *facts.write_queues;
  uint64_t read = 0;
  if (write > 0 && interrupt > 1) read = write >= interrupt ? 1 : interrupt - write;
  return Json{{"default", interrupt - read}, {"read", read}, {"poll", poll}};
}

void derive_missing_nvme_queues(Json& snapshot) {
  if (!snapshot.is_object()) return;
  const auto nvme = snapshot.find("nvme");
  if (nvme == snapshot.end() || !nvme->is_object()) return;
  const auto controllers = nvme->find("controllers");
  if (controllers == nvme->end() || !controllers->is_object()) return;
  NvmeQueueFacts parameters;
  if (const Json* module = object_at(*nvme, {"parameters", "nvme"})) {
    parameters.poll_queues = count_member(*module, "poll_queues");
    parameters.write_queues = count_member(*module, "write_queues");
  }
  for (auto& [name, controller] : controllers->items()) {
    if (!controller.is_object() || controller.contains("queues") ||
        text_member(controller, "transport") != "pcie") {
      continue;
    }
    NvmeQueueFacts facts = parameters;
    facts.queue_count = count_member(controller, "queue_count");
    const auto hardware = snapshot_hardware_queues(snapshot, controller);
    if (hardware) facts.hardware_queues = hardware->first;
    auto split = derive_nvme_queue_split(facts);
    if (!split) continue;
    controller["queues"] = std::move(*split);
    controller["queues_source"] = "derived";
    // Provenance (docs/snapshot.md): the facts the split was worked out from.
    controller["derived"]["queues"] = {
        "nvme.parameters.nvme.poll_queues", "nvme.parameters.nvme.write_queues",
        hardware ? hardware->second : "nvme.controllers." + name + ".queue_count"};
    if (const auto unavailable = controller.find("unavailable");
        unavailable != controller.end() && unavailable->is_object()) {
      unavailable->erase("queues");
      if (unavailable->empty()) controller.erase("unavailable");
    }
  }
}

}  // namespace kdrift
