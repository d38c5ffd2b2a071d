#include "fleet/host_facts.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <string_view>

#include "snapshot/json_access.h"
#include "snapshot/sections.h"
#include "util/text.h"

namespace kdrift {
namespace {

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

// Collects the selected facts; a name seen twice keeps every distinct value, joined, so a host
// with two controllers of one model in different states reads as "0, 2", not as one of them.
class FactSet {
 public:
  explicit FactSet(const FactSelection& selection) : selection_(selection) {}

  void add(const std::string& name, std::string value) {
    if (selection_.takes(name)) insert(name, std::move(value));
  }
  // NAME[KEY], selected by NAME.
  void add_keyed(const std::string& name, const std::string& key, std::string value) {
    if (selection_.takes(name)) insert(name + "[" + key + "]", std::move(value));
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
  void insert(std::string fact, std::string value) {
    if (values_.size() >= kMaxFactsPerHost && !values_.contains(fact)) return;
    values_[std::move(fact)].insert(bounded(std::move(value)));
  }

  const FactSelection& selection_;
  std::map<std::string, std::set<std::string>> values_;
};

// Every member of an object as the fact PREFIX + its key, in words; a member the object names
// in "unavailable" as kUnknownFact, which no majority counts.
void add_members(const Json* object, const std::string& prefix, FactSet& facts,
                 const std::string& key = "") {
  if (object == nullptr) return;
  const auto add = [&](const std::string& name, std::string value) {
    if (key.empty()) {
      facts.add(prefix + name, std::move(value));
    } else {
      facts.add_keyed(prefix + name, key, std::move(value));
    }
  };
  for (const auto& [name, value] : object->items()) {
    if (name != "unavailable") {
      add(name, words(value));
    } else if (value.is_object()) {
      for (const auto& [unknown, why] : value.items())
        add(unknown, std::string(kUnknownFact));
    }
  }
}

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
  add_members(object_at(snapshot, {"kernel", "config", "symbols"}), "kernel.config.", facts);
  add_members(object_at(snapshot, {"kernel", "cmdline", "effective"}), "kernel.cmdline.", facts);
  add_members(object_at(snapshot, {"sysctl"}), "sysctl.", facts);
}

void storage_facts(const Json& snapshot, FactSet& facts) {
  for (const Json& device : array_at(snapshot, {"iommu", "devices"})) {
    const std::string name = text_member(device, "device");
    // A mode the snapshot does not know (a sos report without the IOMMU groups) is unknown,
    // not a mode the host shares with others.
    if (!name.empty()) {
      facts.add_keyed("iommu.mode", device_class(name),
                      text_member(device, "mode", std::string(kUnknownFact)));
    }
  }
  if (const Json* controllers = object_at(snapshot, {"nvme", "controllers"})) {
    for (const auto& [name, controller] : controllers->items()) {
      const std::string model = std::string(trim(text_member(controller, "model", name)));
      if (const Json* queues = object_member(controller, "queues")) {
        for (const auto& [type, count] : queues->items()) {
          facts.add_keyed("nvme.queues." + type, model, words(count));
        }
      }
      if (auto node = integer_member(controller, "numa_node")) {
        facts.add_keyed("numa.node", model, std::to_string(*node));
      }
    }
  }
  add_members(object_at(snapshot, {"nvme", "parameters", "nvme"}), "nvme.param.", facts);
  const auto models = namespace_models(snapshot);
  if (const Json* devices = object_at(snapshot, {"block", "devices"})) {
    for (const auto& [name, device] : devices->items()) {
      const auto model = models.find(name);
      const std::string key = model != models.end() ? model->second : device_class(name);
      if (auto active = string_at(device, {"scheduler", "active"})) {
        facts.add_keyed("block.scheduler", key, *active);
      }
      add_members(object_member(device, "queue"), "block.queue.", facts, key);
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
        facts.add_keyed("pci.link", model, speed + (width ? " x" + std::to_string(*width) : ""));
      }
    }
    if (const Json* request = member(device, "max_read_request_bytes")) {
      facts.add_keyed("pci.max_read_request_bytes", model, words(*request));
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

FactSelection::FactSelection(const std::vector<Rule>& rules) {
  for (const Rule& rule : rules) {
    for (const std::string& entry : rule.fingerprint) {
      if (entry.ends_with('*')) {
        prefixes_.insert(entry.substr(0, entry.size() - 1));
      } else {
        names_.insert(entry);
      }
    }
  }
  drop_covered_prefixes();
}

// A prefix another one starts with takes nothing more: without them, the one prefix a name can
// start with is the last one not after it (a fleet read asks this of every config symbol).
void FactSelection::drop_covered_prefixes() {
  for (auto prefix = prefixes_.begin(); prefix != prefixes_.end();) {
    auto next = std::next(prefix);
    while (next != prefixes_.end() && next->starts_with(*prefix))
      next = prefixes_.erase(next);
    prefix = next;
  }
}

bool FactSelection::takes(std::string_view name) const {
  if (names_.contains(name)) return true;
  const auto after = prefixes_.upper_bound(name);
  return after != prefixes_.begin() && name.starts_with(*std::prev(after));
}

FactSelection FactSelection::under(std::string_view prefix) const {
  FactSelection below;
  for (const std::string& name : names_) {
    if (name.starts_with(prefix)) below.names_.insert(name.substr(prefix.size()));
  }
  for (const std::string& taken : prefixes_) {
    if (taken.starts_with(prefix)) {
      below.prefixes_.insert(taken.substr(prefix.size()));
    } else if (prefix.starts_with(taken)) {
      below.prefixes_.insert("");  // takes everything below prefix
    }
  }
  below.drop_covered_prefixes();
  return below;
}

HostFacts host_facts(const Json& snapshot, const FactSelection& selection) {
  HostFacts host;
  host.hostname = bounded(string_at(snapshot, {"environment", "hostname"}).value_or(""));
  host.kernel = bounded(string_at(snapshot, {"kernel", "release"}).value_or("?"));
  host.hardware = hardware_of(snapshot);
  FactSet facts(selection);
  kernel_facts(snapshot, facts);
  storage_facts(snapshot, facts);
  pci_facts(snapshot, facts);
  cpu_facts(snapshot, facts);
  probe_facts(snapshot, facts, host.probe_iops);
  host.facts = facts.take();
  return host;
}

JsonMemberFilter fleet_member_filter(const FactSelection& selection) {
  // A kernel's config is thousands of symbols: each is asked of the few entries that name
  // config symbols, not of every entry, and without making its fact's name first.
  return [config = selection.under("kernel.config.")](std::span<const std::string> path) {
    if (path.size() == 1) {
      const SnapshotSection* section = find_section(path[0]);
      return path[0] == "schema" || (section != nullptr && section->fleet_reads);
    }
    const std::string_view section = path[0];
    if (section == "environment") return path[1] == "hostname";
    if (section == "pci" && path.size() == 3) return true;
    if (section == "pci" && path.size() == 4) return path[3] != "aer";
    if (section == "kernel" && path.size() == 4 && path[1] == "config" && path[2] == "symbols") {
      return config.takes(path[3]);
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
}

Result<Json> read_fleet_snapshot(const std::string& path, const FactSelection& selection) {
  return read_snapshot_file(path, fleet_member_filter(selection));
}

}  // namespace kdrift
