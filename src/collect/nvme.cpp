#include "collect/nvme.h"

#include <algorithm>
#include <map>

#include "collect/device_path.h"
#include "collect/facts.h"
#include "collect/kernel_log.h"
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
    if (entries.error().code == ENOENT) {
      section[std::string(key)] = "not loaded";
    } else {
      mark_unavailable(section, key, entries.error());
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

// "nvme nvme0: 2/0/2 default/read/poll queues" (5.0 and later) is the only place the split of
// I/O queues into default, read and poll queues is told; it is logged at every (re)probe, so
// the last line for a controller is the one in force.
std::map<std::string, Json> queue_splits(const std::vector<std::string>& messages) {
  std::map<std::string, Json> splits;
  for (const auto& message : messages) {
    if (!starts_with(message, "nvme nvme") || !message.ends_with(kQueueSplitSuffix)) continue;
    const auto colon = message.find(": ");
    const auto end = message.size() - kQueueSplitSuffix.size();
    if (colon == std::string::npos || colon + 2 > end) continue;
    const auto counts = split(std::string_view(message).substr(colon + 2, end - colon - 2), '/');
    if (counts.size() != 3) continue;
    Json split_counts = Json::object();
    const char* names[] = {"default", "read", "poll"};
    for (size_t i = 0; i < 3; ++i) {
      if (const auto value = parse_uint(counts[i])) split_counts[names[i]] = *value;
    }
    if (split_counts.size() == 3) splits[message.substr(5, colon - 5)] = std::move(split_counts);
  }
  return splits;
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

void put_queue_splits(const SysRoot& root, Json& controllers) {
  auto records = root.read_kmsg();
  if (!records) {
    for (auto& [name, controller] : controllers.items()) {
      mark_unavailable(controller, "queues", records.error());
    }
    return;
  }
  const auto splits = queue_splits(kernel_log_messages(*records));
  for (auto& [name, controller] : controllers.items()) {
    if (const auto split = splits.find(name); split != splits.end()) {
      controller["queues"] = split->second;
    } else {
      mark_unavailable(controller, "queues",
                       "no \"nvme " + name + ": N/N/N" + std::string(kQueueSplitSuffix) +
                           "\" line in the kernel log (kernel before 5.0, or the log wrapped)");
    }
  }
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
  if (!controllers.empty()) put_queue_splits(root, controllers);
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
