#include "fleet/host_facts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string_view>

#include "snapshot/json_access.h"
#include "snapshot/sections.h"
#include "util/text.h"

namespace kdrift {
namespace {

// Kconfig symbols whose value moves the block layer, NVMe, the IOMMU, io_uring or the
// scheduler's latency; the rest of a config (drivers, filesystems) would make every rebuild an
// outlier.
constexpr std::array<std::string_view, 12> kConfigPrefixes = {
    "CONFIG_IOMMU_", "CONFIG_INTEL_IOMMU", "CONFIG_AMD_IOMMU",  "CONFIG_NVME",
    "CONFIG_BLK_",   "CONFIG_IO_URING",    "CONFIG_MQ_IOSCHED", "CONFIG_IOSCHED_",
    "CONFIG_HZ",     "CONFIG_PREEMPT",     "CONFIG_NUMA",       "CONFIG_CPU_FREQ_DEFAULT_GOV"};

// Command-line parameters that move async I/O; the rest (root=, console=, initrd=) differ
// between hosts without meaning anything for it.
constexpr std::array<std::string_view, 16> kCmdlinePrefixes = {
    "mitigations", "iommu",      "intel_iommu", "amd_iommu",           "nvme.",     "nvme_core.",
    "scsi_mod.",   "elevator",   "isolcpus",    "nohz_full",           "rcu_nocbs", "irqaffinity",
    "intel_idle.", "processor.", "idle",        "transparent_hugepage"};

constexpr std::array<std::string_view, 8> kQueueSettings = {
    "nr_requests", "nomerges", "read_ahead_kb",  "wbt_lat_usec",
    "rq_affinity", "io_poll",  "max_sectors_kb", "write_cache"};

constexpr std::array<std::string_view, 4> kSysctls = {"kernel.io_uring_disabled", "fs.aio-max-nr",
                                                      "kernel.numa_balancing", "vm.dirty_ratio"};

bool has_prefix(std::string_view name, std::span<const std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

std::string bounded(std::string text) {
  if (text.size() <= kMaxFactValueBytes) return text;
  text.resize(kMaxFactValueBytes);
  return text + "…";
}

// A value as it reads in a report: strings as they are, numbers without a trailing ".0".
std::string words(const Json& value) {
  if (value.is_string()) return bounded(value.get<std::string>());
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer() || value.is_number_unsigned()) return value.dump();
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 1e15) {
      return std::to_string(static_cast<long long>(number));
    }
    return value.dump();
  }
  return bounded(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

// Collects facts; a name seen twice keeps every distinct value, joined, so a host with two
// controllers of one model in different states reads as "0, 2", not as one of them.
class FactSet {
 public:
  void add(std::string name, std::string value) {
    if (values_.size() >= kMaxFactsPerHost && !values_.contains(name)) return;
    values_[std::move(name)].insert(bounded(std::move(value)));
  }
  std::vector<std::pair<std::string, std::string>> take() {
    std::vector<std::pair<std::string, std::string>> facts;
    facts.reserve(values_.size());
    for (auto& [name, values] : values_) {
      facts.emplace_back(name, bounded(join({values.begin(), values.end()}, ", ")));
    }
    return facts;
  }

 private:
  std::map<std::string, std::set<std::string>> values_;
};

// nvme0n1 → nvme, vda → virtio, sda → scsi: the class a device's IOMMU mode is judged within.
std::string device_class(std::string_view device) {
  if (device.starts_with("nvme")) return "nvme";
  if (device.starts_with("vd")) return "virtio";
  if (device.starts_with("sd")) return "scsi";
  if (device.starts_with("xvd")) return "xen";
  std::string letters;
  for (const char c : device) {
    if (c < 'a' || c > 'z') break;
    letters += c;
  }
  return letters.empty() ? "other" : letters;
}

// Block device (nvme0n1) → its controller's model, from the NVMe section.
std::map<std::string, std::string> namespace_models(const Json& snapshot) {
  std::map<std::string, std::string> models;
  const Json* controllers = object_at(snapshot, {"nvme", "controllers"});
  if (controllers == nullptr) return models;
  for (const auto& [name, controller] : controllers->items()) {
    const std::string model = std::string(trim(text_member(controller, "model", name)));
    const Json* namespaces = object_member(controller, "namespaces");
    if (namespaces == nullptr) continue;
    for (const auto& [device, unused] : namespaces->items())
      models[device] = model;
  }
  return models;
}

void kernel_facts(const Json& snapshot, FactSet& facts) {
  if (auto release = string_at(snapshot, {"kernel", "release"})) {
    facts.add("kernel.release", *release);
  }
  if (const Json* symbols = object_at(snapshot, {"kernel", "config", "symbols"})) {
    for (const auto& [name, value] : symbols->items()) {
      if (has_prefix(name, kConfigPrefixes)) facts.add("kernel.config." + name, words(value));
    }
  }
  if (const Json* effective = object_at(snapshot, {"kernel", "cmdline", "effective"})) {
    for (const auto& [name, value] : effective->items()) {
      if (has_prefix(name, kCmdlinePrefixes)) facts.add("kernel.cmdline." + name, words(value));
    }
  }
  for (const std::string_view name : kSysctls) {
    if (const Json* value = at(snapshot, {"sysctl", name})) {
      facts.add("sysctl." + std::string(name), words(*value));
    }
  }
}

void storage_facts(const Json& snapshot, FactSet& facts) {
  for (const Json& device : array_at(snapshot, {"iommu", "devices"})) {
    const std::string name = text_member(device, "device");
    if (!name.empty())
      facts.add("iommu.mode[" + device_class(name) + "]", text_member(device, "mode", "?"));
  }
  if (const Json* controllers = object_at(snapshot, {"nvme", "controllers"})) {
    for (const auto& [name, controller] : controllers->items()) {
      const std::string model = std::string(trim(text_member(controller, "model", name)));
      if (const Json* queues = object_member(controller, "queues")) {
        for (const auto& [type, count] : queues->items()) {
          facts.add("nvme.queues." + type + "[" + model + "]", words(count));
        }
      }
      if (auto node = integer_member(controller, "numa_node")) {
        facts.add("numa.node[" + model + "]", std::to_string(*node));
      }
    }
  }
  if (const Json* nvme = object_at(snapshot, {"nvme", "parameters", "nvme"})) {
    for (const std::string_view name : {"poll_queues", "write_queues", "io_queue_depth"}) {
      if (const Json* value = member(*nvme, name))
        facts.add("nvme.param." + std::string(name), words(*value));
    }
  }
  const auto models = namespace_models(snapshot);
  if (const Json* devices = object_at(snapshot, {"block", "devices"})) {
    for (const auto& [name, device] : devices->items()) {
      const auto model = models.find(name);
      const std::string key = model != models.end() ? model->second : device_class(name);
      if (auto active = string_at(device, {"scheduler", "active"})) {
        facts.add("block.scheduler[" + key + "]", *active);
      }
      const Json* queue = object_member(device, "queue");
      if (queue == nullptr) continue;
      for (const std::string_view setting : kQueueSettings) {
        if (const Json* value = member(*queue, setting)) {
          facts.add("block.queue." + std::string(setting) + "[" + key + "]", words(*value));
        }
      }
    }
  }
}

void pci_facts(const Json& snapshot, FactSet& facts) {
  const Json* devices = object_at(snapshot, {"pci", "devices"});
  if (devices == nullptr) return;
  for (const auto& [address, device] : devices->items()) {
    if (text_member(device, "role") != "storage") continue;
    const std::string model = text_member(device, "device_name", address);
    if (const Json* link = object_member(device, "link")) {
      const std::string speed = text_member(*link, "current_link_speed");
      const auto width = integer_member(*link, "current_link_width");
      if (!speed.empty()) {
        facts.add("pci.link[" + model + "]", speed + (width ? " x" + std::to_string(*width) : ""));
      }
    }
    if (const Json* request = member(device, "max_read_request_bytes")) {
      facts.add("pci.max_read_request_bytes[" + model + "]", words(*request));
    }
  }
}

void cpu_facts(const Json& snapshot, FactSet& facts) {
  for (const Json& policy : array_at(snapshot, {"cpu", "cpufreq", "policies"})) {
    if (const Json* governor = member(policy, "scaling_governor"))
      facts.add("cpu.governor", words(*governor));
    if (const Json* driver = member(policy, "scaling_driver"))
      facts.add("cpu.freq_driver", words(*driver));
  }
  if (auto driver = string_at(snapshot, {"cpu", "cpuidle", "driver"}))
    facts.add("cpu.idle.driver", *driver);
  if (const Json* active = at(snapshot, {"cpu", "smt", "active"}))
    facts.add("cpu.smt.active", words(*active));
  if (const Json* vulnerabilities = object_at(snapshot, {"cpu", "vulnerabilities"})) {
    for (const auto& [name, state] : vulnerabilities->items()) {
      if (state.is_string()) facts.add("cpu.vulnerabilities." + name, state.get<std::string>());
    }
  }
  const Json& nodes = array_at(snapshot, {"numa", "nodes"});
  if (!nodes.empty()) facts.add("numa.nodes", std::to_string(nodes.size()));
}

void probe_facts(const Json& snapshot, FactSet& facts, std::map<std::string, double>& iops) {
  if (const Json* capabilities = object_at(snapshot, {"probe", "capabilities"})) {
    for (const auto& [name, capability] : capabilities->items()) {
      const std::string status = text_member(capability, "status");
      if (!status.empty()) facts.add("probe.capability." + name, status);
    }
  }
  for (const Json& job : array_at(snapshot, {"probe", "jobs"})) {
    const std::string name = text_member(job, "name");
    if (name.empty() || text_member(job, "status") != "ok") continue;
    const std::string rw = text_member(job, "rw");
    const bool writes = rw == "write" || rw == "randwrite";
    if (auto value = number_at(job, {writes ? "write" : "read", "iops"}); value && *value > 0) {
      iops[bounded(name)] = *value;
    }
  }
}

// The CPU and the storage controllers: what a host is, as opposed to how it booted.
std::string hardware_of(const Json& snapshot) {
  std::set<std::string> storage;
  if (const Json* devices = object_at(snapshot, {"pci", "devices"})) {
    for (const auto& [address, device] : devices->items()) {
      if (text_member(device, "role") == "storage")
        storage.insert(text_member(device, "device_name", address));
    }
  }
  if (storage.empty()) {
    for (const auto& [device, model] : namespace_models(snapshot))
      storage.insert(model);
  }
  std::string cpu =
      std::string(trim(string_at(snapshot, {"cpu", "processor", "model_name"}).value_or("?")));
  if (storage.empty()) return bounded(cpu);
  return bounded(cpu + " | " + join({storage.begin(), storage.end()}, ", "));
}

}  // namespace

HostFacts host_facts(const Json& snapshot) {
  HostFacts host;
  host.hostname = bounded(string_at(snapshot, {"environment", "hostname"}).value_or(""));
  host.kernel = bounded(string_at(snapshot, {"kernel", "release"}).value_or("?"));
  host.hardware = hardware_of(snapshot);
  FactSet facts;
  kernel_facts(snapshot, facts);
  storage_facts(snapshot, facts);
  pci_facts(snapshot, facts);
  cpu_facts(snapshot, facts);
  probe_facts(snapshot, facts, host.probe_iops);
  host.facts = facts.take();
  return host;
}

const JsonMemberFilter& fleet_member_filter() {
  static const JsonMemberFilter filter = [](std::span<const std::string> path) {
    if (path.size() == 1) {
      const SnapshotSection* section = find_section(path[0]);
      return path[0] == "schema" || (section != nullptr && section->fleet_reads);
    }
    const std::string_view section = path[0];
    if (section == "environment") return path[1] == "hostname";
    if (section == "pci" && path.size() == 3) return true;
    if (section == "pci" && path.size() == 4) return path[3] != "aer";
    if (section == "kernel" && path.size() == 4 && path[1] == "config" && path[2] == "symbols") {
      return has_prefix(path[3], kConfigPrefixes);
    }
    // Of a job, what host_facts reads: its traces, per-second samples and rounds are most of a
    // snapshot.
    if (section == "probe" && path[1] == "jobs" && path.size() >= 4) {
      static const std::set<std::string, std::less<>> job = {"name", "rw", "status", "read",
                                                             "write"};
      if (path.size() == 4) return job.contains(path[3]);
      return path.size() > 5 || path[4] == "iops";
    }
    return true;
  };
  return filter;
}

Result<Json> read_fleet_snapshot(const std::string& path) {
  return read_snapshot_file(path, fleet_member_filter());
}

}  // namespace kdrift
