#include "collect/nvme.h"

#include <algorithm>
#include <map>

#include "collect/device_path.h"
#include "collect/facts.h"
#include "collect/kernel_log.h"
#include "kernel_facts/nvme_queues.h"
#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

// Serial numbers and firmware revisions may be all digits; they stay text.
constexpr std::string_view kControllerText[] = {"model",     "serial",  "firmware_rev",
                                                "transport", "address", "state"};
constexpr std::string_view kControllerNumbers[] = {"numa_node", "queue_count", "sqsize"};
// Added in 5.18; older kernels simply do not have it.
constexpr std::string_view kControllerOptional[] = {"cntrltype"};

constexpr std::string_view kQueueSplitSuffix = " default/read/poll queues";
constexpr const char* kQueueTypes[] = {"default", "read", "poll"};
constexpr std::string_view kDebugfsBlock = "/sys/kernel/debug/block/";

bool contains(const std::vector<std::string>& sorted, std::string_view name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// "nvme0n1", or "nvme0c1n1" for a multipath path device; not partitions ("nvme0n1p1").
bool is_namespace_name(std::string_view name) {
  if (!starts_with(name, "nvme")) return false;
  const auto n = name.rfind('n');
  if (n == std::string_view::npos || n < 5 || !all_digits(name.substr(n + 1))) return false;
  const auto front = name.substr(4, n - 4);
  const auto c = front.find('c');
  if (c == std::string_view::npos) return all_digits(front);
  return all_digits(front.substr(0, c)) && all_digits(front.substr(c + 1));
}

// A loadable module has "initstate"; a built-in one still gets /sys/module/<name> for its
// parameters. Returns the module's entries when it is there.
std::optional<std::vector<std::string>> put_module_state(Json& section, std::string_view key,
                                                         const SysRoot& root,
                                                         const std::string& directory) {
  auto entries = root.list(directory);
  if (!entries) {
    if (entries.error().code != ENOENT) {
      mark_unavailable(section, key, entries.error());
    } else if (root.complete() || root.exists("/sys/module")) {
      section[std::string(key)] = "not loaded";
    } else {
      mark_unavailable(section, key,
                       "/sys/module is not in this tree: whether the module is loaded is unknown");
    }
    return std::nullopt;
  }
  section[std::string(key)] = contains(*entries, "initstate") ? "module" : "built-in";
  return std::move(*entries);
}

void collect_modules(const SysRoot& root, Json& section) {
  Json parameters = Json::object();
  for (const auto& [key, module] : {std::pair{"driver", "nvme"}, {"core", "nvme_core"}}) {
    const std::string directory = std::string("/sys/module/") + module;
    const auto entries = put_module_state(section, key, root, directory);
    if (!entries) continue;
    if (contains(*entries, "parameters")) {
      parameters[module] = read_attribute_directory(root, directory + "/parameters");
    } else {
      mark_unavailable(parameters, module, directory + "/parameters is absent");
    }
  }
  section["parameters"] = std::move(parameters);
}

// "nvme nvme0: 2/0/2 default/read/poll queues" (5.0 and later), logged at every (re)probe, so
// the last line for a controller is the one in force.
std::map<std::string, Json> logged_splits(const std::vector<std::string>& messages) {
  std::map<std::string, Json> splits;
  for (const auto& message : messages) {
    if (!starts_with(message, "nvme nvme") || !message.ends_with(kQueueSplitSuffix)) continue;
    const auto colon = message.find(": ");
    const auto end = message.size() - kQueueSplitSuffix.size();
    if (colon == std::string::npos || colon + 2 > end) continue;
    const auto counts = split(std::string_view(message).substr(colon + 2, end - colon - 2), '/');
    if (counts.size() != 3) continue;
    Json split_counts = Json::object();
    for (size_t i = 0; i < 3; ++i) {
      if (const auto value = parse_uint(counts[i])) split_counts[kQueueTypes[i]] = *value;
    }
    if (split_counts.size() == 3) splits[message.substr(5, colon - 5)] = std::move(split_counts);
  }
  return splits;
}

// One hardware queue directory per blk-mq hardware context: "hctx3" in debugfs, "3" under mq/.
bool is_queue_entry(std::string_view entry, std::string_view prefix) {
  return starts_with(entry, prefix) && all_digits(entry.substr(prefix.size()));
}

// blk-mq's debugfs (5.0 and later) names each hardware queue's type as the kernel uses it now.
Result<Json> debugfs_split_of(const SysRoot& root, const std::string& disk) {
  const std::string directory = std::string(kDebugfsBlock) + disk;
  auto entries = root.list(directory);
  if (!entries) return entries.error();
  Json counts = {{"default", 0}, {"read", 0}, {"poll", 0}};
  bool any = false;
  for (const auto& entry : *entries) {
    if (!is_queue_entry(entry, "hctx")) continue;
    const std::string path = directory + "/" + entry + "/type";
    auto type = root.read_value(path);
    if (!type) return type.error();
    if (!counts.contains(*type)) return content_error(path + ": not default, read or poll");
    counts[*type] = counts[*type].get<int64_t>() + 1;
    any = true;
  }
  if (!any) return content_error(directory + " has no hctx directories");
  return counts;
}

// Every namespace shares its controller's tag set: the first one debugfs lists tells.
Result<Json> debugfs_split(const SysRoot& root, const std::vector<std::string>& namespaces) {
  Error why = content_error("the controller has no namespace whose hardware queues debugfs lists");
  for (const auto& name : namespaces) {
    auto split = debugfs_split_of(root, name);
    if (split) return split;
    why = split.error();
  }
  if (why.code == ENOENT) why.context += " (debugfs not mounted, or no CONFIG_BLK_DEBUG_FS)";
  return why;
}

Result<std::map<std::string, Json>> read_logged_splits(const SysRoot& root) {
  auto records = root.read_kmsg();
  if (!records) return records.error();
  return logged_splits(kernel_log_messages(*records));
}

Result<Json> logged_split(const Result<std::map<std::string, Json>>& logged,
                          const std::string& name) {
  if (!logged) return logged.error();
  if (const auto split = logged->find(name); split != logged->end()) return split->second;
  return content_error("no \"nvme " + name + ": N/N/N" + std::string(kQueueSplitSuffix) +
                       "\" line (kernel before 5.0, or the log wrapped)");
}

std::optional<uint64_t> hardware_queues(const SysRoot& root, const std::string& directory,
                                        const std::vector<std::string>& namespaces) {
  for (const auto& name : namespaces) {
    const auto entries = root.list(directory + "/" + name + "/mq");
    if (!entries) continue;
    const auto count = std::count_if(entries->begin(), entries->end(),
                                     [](const std::string& e) { return is_queue_entry(e, ""); });
    if (count > 0) return static_cast<uint64_t>(count);
  }
  return std::nullopt;
}

Result<Json> derived_split(const SysRoot& root, const Json& parameters, const Json& controller,
                           const std::string& directory,
                           const std::vector<std::string>& namespaces) {
  const std::string transport = text_member(controller, "transport");
  if (transport != "pcie") {
    return content_error("the derivation is the PCIe driver's; transport is \"" + transport + "\"");
  }
  NvmeQueueFacts facts;
  if (const Json* module = object_member(parameters, "nvme")) {
    facts.poll_queues = count_member(*module, "poll_queues");
    facts.write_queues = count_member(*module, "write_queues");
  }
  facts.queue_count = count_member(controller, "queue_count");
  facts.hardware_queues = hardware_queues(root, directory, namespaces);
  return derive_nvme_queue_split(facts);
}

Json collect_namespace(const SysRoot& root, const std::string& directory) {
  Json ns = Json::object();
  put_int(ns, "nsid", root, directory + "/nsid");
  put_sectors(ns, "size", root, directory + "/size");
  put_int(ns, "logical_block_size", root, directory + "/queue/logical_block_size");
  // 1 only when the driver has poll queues: io_uring IOPOLL and RWF_HIPRI need it.
  put_int(ns, "io_poll", root, directory + "/queue/io_poll");
  return ns;
}

Json collect_controller(const SysRoot& root, const std::string& name) {
  Json controller = Json::object();
  const std::string directory = "/sys/class/nvme/" + name;
  if (auto path = root.resolve(directory)) {
    controller["path"] = *path;
    // NVMe over fabrics controllers are virtual devices: no PCI function.
    if (const auto function = nearest_pci_function(*path)) controller["pci"] = function->address;
  } else {
    mark_unavailable(controller, "path", path.error());
  }
  auto entries = root.list(directory);
  if (!entries) {
    mark_unavailable(controller, "*", entries.error());
    return controller;
  }
  for (const auto key : kControllerText) {
    put_text(controller, key, root, directory + "/" + std::string(key));
  }
  for (const auto key : kControllerNumbers) {
    put_int(controller, key, root, directory + "/" + std::string(key));
  }
  for (const auto key : kControllerOptional) {
    if (contains(*entries, key)) {
      put_text(controller, key, root, directory + "/" + std::string(key));
    }
  }
  Json namespaces = Json::object();
  for (const auto& entry : *entries) {
    if (is_namespace_name(entry)) {
      namespaces[entry] = collect_namespace(root, directory + "/" + entry);
    }
  }
  controller["namespaces"] = std::move(namespaces);
  return controller;
}

std::vector<std::string> namespace_names(const Json& controller) {
  std::vector<std::string> names;
  if (const Json* namespaces = object_member(controller, "namespaces")) {
    for (const auto& [name, ns] : namespaces->items())
      names.push_back(name);
  }
  return names;
}

// Sources best first: debugfs is the kernel's per-queue state now; the log line is the kernel's
// own word at the last reset, but wraps away on a long-running host; the derivation redoes the
// driver's arithmetic from parameters that may have been rewritten since that reset.
void put_queue_split(const SysRoot& root, const Json& parameters,
                     const Result<std::map<std::string, Json>>& logged, const std::string& name,
                     Json& controller) {
  const auto namespaces = namespace_names(controller);
  std::string why_not;
  const auto take = [&](std::string_view source, Result<Json> split) {
    if (split) {
      controller["queues"] = std::move(*split);
      controller["queues_source"] = source;
      return true;
    }
    why_not +=
        (why_not.empty() ? "" : "; ") + std::string(source) + ": " + split.error().describe();
    return false;
  };
  const std::string directory = "/sys/class/nvme/" + name;
  if (take("debugfs", debugfs_split(root, namespaces)) ||
      take("kernel log", logged_split(logged, name)) ||
      take("derived", derived_split(root, parameters, controller, directory, namespaces))) {
    return;
  }
  mark_unavailable(controller, "queues", why_not);
}

void collect_controllers(const SysRoot& root, Json& section) {
  auto names = root.list("/sys/class/nvme");
  Json controllers = Json::object();
  if (!names) {
    // The class exists once nvme_core is loaded; before that there are no controllers.
    if (names.error().code == ENOENT) {
      section["controllers"] = std::move(controllers);
    } else {
      mark_unavailable(section, "controllers", names.error());
    }
    return;
  }
  for (const auto& name : *names) {
    if (starts_with(name, "nvme") && all_digits(name.substr(4))) {
      controllers[name] = collect_controller(root, name);
    }
  }
  if (!controllers.empty()) {
    const auto logged = read_logged_splits(root);
    for (auto& [name, controller] : controllers.items()) {
      put_queue_split(root, section["parameters"], logged, name, controller);
    }
  }
  section["controllers"] = std::move(controllers);
}

}  // namespace

Json collect_nvme(const SysRoot& root) {
  Json section = Json::object();
  collect_modules(root, section);
  collect_controllers(root, section);
  return section;
}

}  // namespace kdrift
