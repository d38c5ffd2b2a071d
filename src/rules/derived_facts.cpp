#include "rules/derived_facts.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "kernel_facts/iommu_inputs.h"
#include "model/job_result.h"
#include "snapshot/json_access.h"

namespace kdrift {
namespace {

// CPU, node and depth numbers: anything else in a hand-edited snapshot is skipped, not cast.
std::optional<int> small_int(std::optional<double> value) {
  if (!value || *value < 0 || *value > 1e6 || *value != std::floor(*value)) return std::nullopt;
  return static_cast<int>(*value);
}

std::vector<int> int_list(const Json* list) {
  std::vector<int> values;
  for (const double value : numbers_in(list)) {
    if (const auto number = small_int(value)) values.push_back(*number);
  }
  return values;
}

// The CPUs that issue I/O: where the probe ran, else where the capturing process may run (a
// database pinned by the same cgroup sees the same).
Json workload_cpus(const Json& snapshot) {
  if (const Json* probe = object_member(snapshot, "probe")) {
    if (const Json* placement = object_member(*probe, "placement")) {
      auto cpus = int_list(array_member(*placement, "cpus"));
      if (!cpus.empty()) return {{"cpus", cpus}, {"source", "probe placement"}};
    }
  }
  if (const Json* environment = object_member(snapshot, "environment")) {
    if (const Json* process = object_member(*environment, "process")) {
      auto cpus = int_list(array_member(*process, "cpus_allowed"));
      if (!cpus.empty()) return {{"cpus", cpus}, {"source", "capturing process"}};
    }
  }
  return Json::object();
}

// node -> its CPUs, from numa.nodes.
std::map<int, std::set<int>> node_cpus(const Json& snapshot) {
  std::map<int, std::set<int>> nodes;
  const Json* numa = object_member(snapshot, "numa");
  const Json* list = numa != nullptr ? array_member(*numa, "nodes") : nullptr;
  if (list == nullptr) return nodes;
  for (const auto& node : *list) {
    const auto id = small_int(number_member(node, "node"));
    if (!id) continue;
    const auto cpus = int_list(array_member(node, "cpus"));
    nodes[*id] = std::set<int>(cpus.begin(), cpus.end());
  }
  return nodes;
}

std::optional<int> numa_node_of(const Json& snapshot, const std::string& pci) {
  const Json* pci_section = object_member(snapshot, "pci");
  const Json* devices = pci_section != nullptr ? object_member(*pci_section, "devices") : nullptr;
  const Json* device = devices != nullptr ? object_member(*devices, pci) : nullptr;
  return small_int(device != nullptr ? number_member(*device, "numa_node") : std::nullopt);
}

std::string probe_disk(const Json& snapshot) {
  const Json* probe = object_member(snapshot, "probe");
  const Json* target = probe != nullptr ? object_member(*probe, "target") : nullptr;
  const Json* device = target != nullptr ? object_member(*target, "device") : nullptr;
  return device != nullptr ? text_member(*device, "disk") : std::string();
}

Json probe_facts(const Json& snapshot) {
  const Json* probe = object_member(snapshot, "probe");
  const Json* jobs = probe != nullptr ? array_member(*probe, "jobs") : nullptr;
  bool polled = false;
  std::set<int> iodepths;
  if (jobs != nullptr) {
    for (const auto& job : *jobs) {
      const auto result = JobResult::from_json(job);
      polled = polled || (result && result->facts().polled);
      if (const auto depth = small_int(number_member(job, "iodepth"))) iodepths.insert(*depth);
    }
  }
  // Polling is expected where a job asked for it, and on NVMe, the one device whose driver
  // polls once given poll queues; elsewhere (virtio-blk without poll_queues, SATA, dm, loop)
  // a failed IOPOLL canary is a capability the host does not offer, not a fault.
  const bool nvme = probe_disk(snapshot).starts_with("nvme");
  return {{"polled", polled},
          {"iodepths", iodepths},
          {"target_nvme", nvme},
          {"polling_expected", polled || nvme}};
}

// derived.iommu: the mode predicted from Kconfig and command line, for rules to use where no
// device reports its IOMMU group type (per_device false).
Json iommu_facts(const Json& snapshot) {
  IommuInputs inputs = iommu_inputs(snapshot);
  const IommuPrediction prediction = predict_iommu_mode(inputs);
  std::string basis;
  for (const auto& step : prediction.basis)
    basis += (basis.empty() ? "" : "; ") + step;
  bool per_device = false;
  if (const Json* devices = at(snapshot, {"iommu", "devices"}); devices && devices->is_array()) {
    per_device = std::any_of(devices->begin(), devices->end(), [](const Json& device) {
      const std::string mode = text_member(device, "mode");
      return !text_member(device, "pci").empty() && !mode.empty() && mode != "unknown";
    });
  }
  // What the build gives with no parameter at all, whether or not the command line is known.
  inputs.cmdline.clear();
  inputs.cmdline_known = true;
  const auto kconfig_default = iommu_mode_name(predict_iommu_mode(inputs).mode);
  Json facts = {{"predicted", iommu_mode_name(prediction.mode)},
                {"basis", basis},
                {"per_device", per_device},
                {"kconfig_default", kconfig_default}};
  if (!prediction.pinned_by.empty()) {
    std::string pin;
    for (const auto& what : prediction.pinned_by)
      pin += (pin.empty() ? "" : " ") + what;
    // Keyed by the parameters, so a rule's evidence line names what overrides the default.
    facts["overridden_by"] = {{pin, {{"kconfig_default", kconfig_default}}}};
  }
  return facts;
}

// remote_numa and local_cpus_only of a disk on a PCI function, where they can be told: a
// single-node host is local by construction; with several nodes it takes the device's node and
// the workload's CPUs. Otherwise both are unknown, with why: never "local" for want of facts.
void numa_placement(Json& disk, std::optional<int> node, const std::map<int, std::set<int>>& nodes,
                    const std::vector<int>& cpus) {
  if (node) disk["numa_node"] = *node;
  const auto unknown = [&](const std::string& why) {
    disk["unavailable"]["remote_numa"] = why;
    disk["unavailable"]["local_cpus_only"] = why;
  };
  if (nodes.empty()) return unknown("numa.nodes is unknown");
  if (nodes.size() == 1) {
    disk["remote_numa"] = false;
    disk["local_cpus_only"] = true;
    disk["derived"] = {{"remote_numa", {"numa.nodes"}}, {"local_cpus_only", {"numa.nodes"}}};
    return;
  }
  const auto local = node ? nodes.find(*node) : nodes.end();
  if (local == nodes.end()) return unknown("the device's NUMA node is unknown or none");
  if (cpus.empty()) return unknown("the CPUs that issue I/O are unknown");
  const auto on_node = [&](int cpu) { return local->second.count(cpu) > 0; };
  disk["remote_numa"] = std::none_of(cpus.begin(), cpus.end(), on_node);
  disk["local_cpus_only"] = std::all_of(cpus.begin(), cpus.end(), on_node);
  const Json inputs = {"pci.devices[].numa_node", "numa.nodes", "derived.workload_cpus"};
  disk["derived"] = {{"remote_numa", inputs}, {"local_cpus_only", inputs}};
}

}  // namespace

Json with_derived_facts(const Json& snapshot, Judgements judgements) {
  Json out = snapshot.is_object() ? snapshot : Json::object();
  // The rules read the verdicts the facts give, not what a file claims.
  if (judgements == Judgements::kUntrusted) judge_kernel_facts(out);
  Json derived = {{"probe", probe_facts(snapshot)},
                  {"workload_cpus", workload_cpus(snapshot)},
                  {"iommu", iommu_facts(snapshot)}};
  const auto nodes = node_cpus(snapshot);
  const auto cpus = int_list(member(derived["workload_cpus"], "cpus"));
  const std::string target_disk = probe_disk(snapshot);
  std::map<std::string, std::string> pci_of;
  const Json* iommu = object_member(snapshot, "iommu");
  if (const Json* devices = iommu != nullptr ? array_member(*iommu, "devices") : nullptr) {
    for (const auto& device : *devices) {
      const std::string pci = text_member(device, "pci");
      if (!pci.empty()) pci_of[text_member(device, "device")] = pci;
    }
  }
  Json disks = Json::object();
  const Json* block = object_member(snapshot, "block");
  if (const Json* devices = block != nullptr ? object_member(*block, "devices") : nullptr) {
    for (const auto& [name, device] : devices->items()) {
      Json disk = {{"probe_target", name == target_disk}};
      const Json* slaves = array_member(device, "slaves");
      disk["stacked"] = slaves != nullptr && !slaves->empty();
      const auto pci = pci_of.find(name);
      disk["physical"] = pci != pci_of.end();
      if (pci != pci_of.end()) {
        disk["pci"] = pci->second;
        numa_placement(disk, numa_node_of(snapshot, pci->second), nodes, cpus);
      }
      disks[name] = std::move(disk);
    }
  }
  derived["disks"] = std::move(disks);
  out["derived"] = std::move(derived);
  return out;
}

}  // namespace kdrift
