#include "rules/derived_facts.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "model/job_result.h"
#include "rules/iommu_mode.h"
#include "snapshot/json_access.h"
#include "snapshot/nvme_queues.h"
#include "snapshot/pci_link.h"
#include "util/text.h"

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

// The IOMMU driver the host has: its units first (an emulated Intel IOMMU can sit under an
// AMD CPU), then a vendor's own parameter on the command line, then the CPU's vendor.
IommuVendor iommu_vendor(const Json& snapshot) {
  if (const Json* units = object_at(snapshot, {"iommu", "units"})) {
    for (const auto& [name, unit] : units->items()) {
      if (!unit.is_object()) continue;
      const std::string type = text_member(unit, "type");
      if (type == "intel-iommu" || name.starts_with("dmar")) return IommuVendor::kIntel;
      if (type == "amd-iommu" || name.starts_with("ivhd")) return IommuVendor::kAmd;
    }
  }
  if (const Json* cmdline = object_at(snapshot, {"iommu", "cmdline"})) {
    const bool intel = cmdline->contains("intel_iommu");
    if (intel != cmdline->contains("amd_iommu")) {
      return intel ? IommuVendor::kIntel : IommuVendor::kAmd;
    }
  }
  const Json* processor = object_at(snapshot, {"cpu", "processor"});
  const std::string vendor = processor != nullptr ? text_member(*processor, "vendor") : "";
  if (vendor == "GenuineIntel") return IommuVendor::kIntel;
  if (vendor == "AuthenticAMD" || vendor == "HygonGenuine") return IommuVendor::kAmd;
  return IommuVendor::kUnknown;
}

// A register as sysfs prints it (%llx: no prefix, at most 16 digits).
std::optional<uint64_t> register_value(const Json& attributes, std::string_view name) {
  const std::string text = text_member(attributes, name);
  if (text.empty() || text.size() > 16 || text.starts_with("0x")) return std::nullopt;
  return parse_uint("0x" + text);
}

// Whether one unit caches not-present entries in the way that forces strict; none when its
// registers do not say. VT-d: Caching Mode is capability bit 7, but in later kernels it forces
// strict only when the driver translates with second-level tables (first_level_by_default()),
// certain only without scalable mode (extended capability bit 43). AMD: NpCache is capability
// bit 26.
std::optional<bool> unit_caches_not_present(const Json& attributes, IommuVendor vendor) {
  const auto cap = register_value(attributes, "cap");
  if (!cap) return std::nullopt;
  if (vendor == IommuVendor::kAmd) return ((*cap >> 26) & 1) != 0;
  if (((*cap >> 7) & 1) == 0) return false;
  const auto ecap = register_value(attributes, "ecap");
  if (!ecap || ((*ecap >> 43) & 1) != 0) return std::nullopt;
  return true;
}

// From the captured registers of the vendor's units: true when any unit forces strict.
std::optional<bool> caches_not_present(const Json& snapshot, IommuVendor vendor) {
  if (vendor == IommuVendor::kUnknown) return std::nullopt;
  const std::string type = vendor == IommuVendor::kIntel ? "intel-iommu" : "amd-iommu";
  const Json* units = object_at(snapshot, {"iommu", "units"});
  if (units == nullptr) return std::nullopt;
  std::optional<bool> caches;
  for (const auto& [name, unit] : units->items()) {
    if (!unit.is_object() || text_member(unit, "type") != type) continue;
    const Json* attributes = member(unit, "attributes");
    if (attributes == nullptr || !attributes->is_object()) continue;
    const auto unit_caches = unit_caches_not_present(*attributes, vendor);
    if (unit_caches == true) return true;
    if (unit_caches) caches = false;
  }
  return caches;
}

IommuInputs iommu_inputs(const Json& snapshot) {
  static constexpr std::string_view kParameters[] = {"intel_iommu", "amd_iommu", "iommu",
                                                     "iommu.strict", "iommu.passthrough"};
  static constexpr std::string_view kSymbols[] = {"CONFIG_X86",
                                                  "CONFIG_INTEL_IOMMU",
                                                  "CONFIG_INTEL_IOMMU_DEFAULT_ON",
                                                  "CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF",
                                                  "CONFIG_AMD_IOMMU",
                                                  "CONFIG_IOMMU_DEFAULT_PASSTHROUGH",
                                                  "CONFIG_IOMMU_DEFAULT_DMA_STRICT",
                                                  "CONFIG_IOMMU_DEFAULT_DMA_LAZY"};
  IommuInputs inputs;
  const Json* cmdline = object_at(snapshot, {"iommu", "cmdline"});
  if (cmdline == nullptr) cmdline = object_at(snapshot, {"kernel", "cmdline", "effective"});
  for (const auto key : kParameters) {
    const Json* value = cmdline != nullptr ? member(*cmdline, key) : nullptr;
    if (value == nullptr) continue;
    // A bare flag (true) is no value, which the kernel's parsers reject.
    inputs.cmdline[std::string(key)] = value->is_string() ? value->get<std::string>() : "";
  }
  if (const Json* symbols = object_at(snapshot, {"kernel", "config", "symbols"})) {
    inputs.kconfig.emplace();
    for (const auto name : kSymbols) {
      const Json* value = member(*symbols, name);
      if (value == nullptr) continue;
      (*inputs.kconfig)[std::string(name)] =
          value->is_string() ? value->get<std::string>() : value->dump();
    }
  }
  inputs.vendor = iommu_vendor(snapshot);
  if (const Json* units = object_at(snapshot, {"iommu", "units"})) {
    // A unit that could not be resolved is named under "unavailable": then nothing is known.
    if (!units->contains("unavailable")) inputs.units_registered = !units->empty();
  }
  inputs.caches_not_present = caches_not_present(snapshot, inputs.vendor);
  const Json* flag = at(snapshot, {"environment", "virtualization", "cpuinfo_hypervisor_flag"});
  const Json* hypervisor = at(snapshot, {"cpu", "processor", "hypervisor"});
  inputs.virtualized =
      (flag != nullptr && *flag == true) || (hypervisor != nullptr && *hypervisor == true);
  return inputs;
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
  inputs.cmdline.clear();
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

}  // namespace

Json with_derived_facts(const Json& snapshot) {
  Json out = snapshot.is_object() ? snapshot : Json::object();
  // Judged again from the link facts: the rules read the verdict, not what a file claims.
  if (const auto pci = out.find("pci"); pci != out.end()) judge_pci_links(*pci);
  // A snapshot without the NVMe queue split (its kernel log had wrapped) gets it from the facts
  // that outlast the log, so nvme.poll-queues does not wait on a log line.
  derive_missing_nvme_queues(out);
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
        // Known to be remote only with a node, several nodes and the workload's CPUs; a
        // single-node host is local by construction.
        bool remote = false;
        bool local_only = true;
        if (const auto node = numa_node_of(snapshot, pci->second)) {
          disk["numa_node"] = *node;
          const auto local = nodes.find(*node);
          if (nodes.size() > 1 && local != nodes.end() && !cpus.empty()) {
            const auto on_node = [&](int cpu) { return local->second.count(cpu) > 0; };
            remote = std::none_of(cpus.begin(), cpus.end(), on_node);
            local_only = std::all_of(cpus.begin(), cpus.end(), on_node);
          }
        }
        disk["remote_numa"] = remote;
        disk["local_cpus_only"] = local_only;
      }
      disks[name] = std::move(disk);
    }
  }
  derived["disks"] = std::move(disks);
  out["derived"] = std::move(derived);
  return out;
}

}  // namespace kdrift
