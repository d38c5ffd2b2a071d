#include "collect/iommu.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "collect/cmdline.h"
#include "collect/device_path.h"
#include "collect/facts.h"
#include "collect/kernel_log.h"
#include "util/text.h"

// The Kconfig side (CONFIG_INTEL_IOMMU_DEFAULT_ON, CONFIG_IOMMU_DEFAULT_*) is not repeated here:
// the kernel collector already parses the whole config into kernel.config.symbols.

namespace kdrift {
namespace {

constexpr std::string_view kGroupsDirectory = "/sys/kernel/iommu_groups";

constexpr std::string_view kCmdlineKeys[] = {"intel_iommu", "amd_iommu", "iommu", "iommu.strict",
                                             "iommu.passthrough"};

// What the IOMMU core and the Intel/AMD drivers say at boot about the mode they chose; the
// per-device "Adding to iommu group" lines are left out (the groups say it better).
constexpr std::string_view kLogMarkers[] = {
    "DMAR:", "AMD-Vi:", "iommu:", "Default domain type", "Using strict mode", "lazy mode"};
// A host with DMA faults logs them without end; the setup lines come first.
constexpr size_t kMaxLogLines = 100;

// Attribute groups the drivers hang below their class device; other drivers (ARM SMMU,
// virtio-iommu) register none.
constexpr std::string_view kUnitTypes[] = {"intel-iommu", "amd-iommu"};

std::string basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The group's default domain type is what decides how a device's DMA is handled; "blocked" and
// "unmanaged" (a VFIO user owns the device) are no DMA API mode at all.
std::string mode_of(std::string_view domain_type) {
  if (domain_type == "DMA-FQ") return "translated-lazy";
  if (domain_type == "DMA") return "translated-strict";
  if (domain_type == "identity") return "passthrough";
  return "unknown";
}

void collect_units(const SysRoot& root, Json& section) {
  auto names = root.list("/sys/class/iommu");
  if (!names) {
    mark_unavailable(section, "units", names.error());
    return;
  }
  Json units = Json::object();
  for (const auto& name : *names) {
    Json unit = Json::object();
    auto path = root.resolve("/sys/class/iommu/" + name);
    if (!path) {
      mark_unavailable(units, name, path.error());
      continue;
    }
    unit["path"] = *path;
    if (const auto function = nearest_pci_function(*path)) unit["pci"] = function->address;
    auto entries = root.list(*path);
    if (!entries) {
      mark_unavailable(unit, "type", entries.error());
    } else {
      for (const auto type : kUnitTypes) {
        if (!std::binary_search(entries->begin(), entries->end(), type)) continue;
        unit["type"] = type;
        const std::string group = *path + "/" + std::string(type);
        Json attributes = Json::object();
        // Registers (cap, ecap) are hex without a prefix: kept as text so "10" stays hex.
        if (auto files = root.list(group)) {
          for (const auto& file : *files) {
            put_text(attributes, file, root, group + "/" + file);
          }
        } else {
          mark_unavailable(attributes, "*", files.error());
        }
        unit["attributes"] = std::move(attributes);
      }
    }
    units[name] = std::move(unit);
  }
  section["units"] = std::move(units);
}

// Group number -> default domain type, for the groups whose type could be read; and why the
// groups could not be listed, when they could not: then a function without an iommu_group link
// proves nothing (a sos report keeps neither the tree nor the links).
struct GroupTypes {
  std::map<int64_t, std::string> types;
  std::string unlisted_because;
};

GroupTypes collect_groups(const SysRoot& root, Json& section) {
  GroupTypes groups;
  auto& types = groups.types;
  auto names = root.list(kGroupsDirectory);
  if (!names) {
    mark_unavailable(section, "groups", names.error());
    groups.unlisted_because = names.error().describe();
    return groups;
  }
  std::vector<std::pair<int64_t, Json>> numbered;
  for (const auto& name : *names) {
    const std::string directory = std::string(kGroupsDirectory) + "/" + name;
    const auto number = parse_int(name);
    if (!number) {
      mark_unavailable(section, directory, "not a group number");
      continue;
    }
    Json group = {{"group", *number}};
    if (auto type = root.read_value(directory + "/type"); !type) {
      mark_unavailable(group, "type", type.error());
    } else if (type->empty()) {
      mark_unavailable(group, "type", directory + "/type is empty");
    } else {
      group["type"] = *type;
      types[*number] = std::move(*type);
    }
    if (auto devices = root.list(directory + "/devices")) {
      group["devices"] = *devices;
    } else {
      mark_unavailable(group, "devices", devices.error());
    }
    numbered.emplace_back(*number, std::move(group));
  }
  std::sort(numbered.begin(), numbered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Json listed = Json::array();
  for (auto& [number, group] : numbered) {
    listed.push_back(std::move(group));
  }
  section["groups"] = std::move(listed);
  return groups;
}

// What the mode was worked out from, as object["derived"] records it (docs/snapshot.md,
// "Provenance").
void derived_from(Json& record, std::vector<std::string> facts) {
  record["derived"]["mode"] = std::move(facts);
}

// The mode is unknown because `input` is: both are named, with the same reason.
void mode_unknown(Json& record, std::string_view input, const std::string& why) {
  record.erase("mode");
  mark_unavailable(record, input, why);
  if (input != "mode") mark_unavailable(record, "mode", why);
}

// A device's mode is its PCI function's group type; without a PCI function (loop, zram, dm,
// NVMe-oF) or without a group there is no IOMMU between the device and memory. (Non-PCI hardware
// behind an IOMMU, such as an arm64 platform device behind an SMMU, would also read "none".)
// A function without an iommu_group link is "none" only where the groups could be listed: a
// tree that holds neither (a sos report) says nothing about the IOMMU.
Json device_mode(const SysRoot& root, const std::string& name, const std::string& resolved,
                 const GroupTypes& groups) {
  Json record = {{"device", name}};
  const auto function = nearest_pci_function(resolved);
  if (!function) {
    record["mode"] = "none";
    derived_from(record, {"/sys/block/" + name + ": no PCI function on its path"});
    return record;
  }
  record["pci"] = function->address;
  const std::string link = function->path + "/iommu_group";
  auto target = root.link_target(link);
  if (!target) {
    if (target.error().code != ENOENT) {
      mode_unknown(record, "iommu_group", target.error().describe());
    } else if (!groups.unlisted_because.empty()) {
      mode_unknown(record, "iommu_group",
                   "no " + link + ", and the IOMMU groups were not captured (" +
                       groups.unlisted_because + ")");
    } else {
      record["mode"] = "none";
      derived_from(record, {"iommu.groups", "no " + link});
    }
    return record;
  }
  const auto group = parse_int(basename_of(*target));
  if (!group) {
    mode_unknown(record, "iommu_group",
                 link + " points to " + quote_value(*target) + ", not a group");
    return record;
  }
  record["iommu_group"] = *group;
  const auto type = groups.types.find(*group);
  if (type == groups.types.end()) {
    mode_unknown(record, "domain_type",
                 "no readable type for iommu group " + std::to_string(*group));
    return record;
  }
  record["domain_type"] = type->second;
  record["mode"] = mode_of(type->second);
  derived_from(record, {"iommu.groups[" + std::to_string(*group) + "].type"});
  return record;
}

// With native NVMe multipath the namespace disk (nvme0n1) is a virtual "head" whose I/O goes
// through the hidden per-controller path disks nvme0c<C>n1, which sit on the PCI functions.
bool is_multipath_head(std::string_view resolved) {
  return resolved.find("/nvme-subsystem/") != std::string_view::npos;
}

bool is_path_of_head(std::string_view path, std::string_view head) {
  const auto n = head.find('n', 4);
  if (!starts_with(head, "nvme") || n == std::string_view::npos) return false;
  const std::string prefix = std::string(head.substr(0, n)) + "c";
  const auto suffix = head.substr(n);
  if (!starts_with(path, prefix) || path.size() <= prefix.size() + suffix.size()) return false;
  const auto controller = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  return path.substr(path.size() - suffix.size()) == suffix &&
         controller.find_first_not_of("0123456789") == std::string_view::npos;
}

Json head_mode(const std::string& name, const Json& records) {
  Json record = {{"device", name}, {"paths", Json::array()}};
  std::vector<std::string> modes;
  std::vector<std::string> inputs;
  bool any_unknown = false;
  for (const auto& path : records) {
    const auto& path_name = path["device"].get_ref<const std::string&>();
    if (!is_path_of_head(path_name, name)) continue;
    record["paths"].push_back(path_name);
    inputs.push_back("iommu.devices[" + path_name + "].mode");
    const auto mode = path.find("mode");
    if (mode == path.end()) {
      any_unknown = true;
    } else {
      modes.push_back(mode->get<std::string>());
    }
  }
  if (record["paths"].empty()) {
    mode_unknown(record, "paths", "multipath head without path devices in /sys/block");
  } else if (any_unknown) {
    mode_unknown(record, "mode", "the mode of one of its paths is unknown");
  } else if (std::equal(modes.begin() + 1, modes.end(), modes.begin())) {
    record["mode"] = modes.front();
    derived_from(record, std::move(inputs));
  } else {
    mode_unknown(record, "mode", "its paths are in different modes");
  }
  return record;
}

void collect_devices(const SysRoot& root, const GroupTypes& groups, Json& section) {
  auto names = root.list("/sys/block");
  if (!names) {
    mark_unavailable(section, "devices", names.error());
    return;
  }
  Json records = Json::array();
  std::vector<std::string> heads;
  for (const auto& name : *names) {
    auto resolved = root.resolve("/sys/block/" + name);
    if (!resolved) {
      Json record = {{"device", name}};
      mode_unknown(record, "path", resolved.error().describe());
      records.push_back(std::move(record));
    } else if (is_multipath_head(*resolved)) {
      heads.push_back(name);
    } else {
      records.push_back(device_mode(root, name, *resolved, groups));
    }
  }
  // Heads are decided from their paths, so they come last and are then put in name order.
  for (const auto& head : heads) {
    records.push_back(head_mode(head, records));
  }
  std::sort(records.begin(), records.end(),
            [](const Json& a, const Json& b) { return a["device"] < b["device"]; });
  section["devices"] = std::move(records);
}

void collect_cmdline(const SysRoot& root, Json& section) {
  auto raw = root.read_shared("/proc/cmdline");
  if (!raw) {
    mark_unavailable(section, "cmdline", raw.error());
    return;
  }
  Json keys = Json::object();
  // The kernel applies parameters in order, so a repeated key's last value is the one in force.
  for (const auto& param : parse_cmdline(*raw).params) {
    if (std::find(std::begin(kCmdlineKeys), std::end(kCmdlineKeys), param.key) ==
        std::end(kCmdlineKeys)) {
      continue;
    }
    keys[param.key] = param.value ? Json(*param.value) : Json(true);
  }
  section["cmdline"] = std::move(keys);
}

void collect_kernel_log(const SysRoot& root, Json& section) {
  auto records = root.read_kmsg();
  if (!records) {
    mark_unavailable(section, "kernel_log", records.error());
    return;
  }
  Json lines = Json::array();
  size_t omitted = 0;
  for (auto& message : kernel_log_messages(*records)) {
    const bool relevant = std::any_of(
        std::begin(kLogMarkers), std::end(kLogMarkers),
        [&](std::string_view marker) { return message.find(marker) != std::string::npos; });
    if (!relevant) continue;
    if (lines.size() < kMaxLogLines) {
      lines.push_back(std::move(message));
    } else {
      ++omitted;
    }
  }
  section["kernel_log"] = std::move(lines);
  if (omitted > 0) section["kernel_log_omitted"] = omitted;
}

}  // namespace

Json collect_iommu(const SysRoot& root) {
  Json section = Json::object();
  collect_units(root, section);
  collect_devices(root, collect_groups(root, section), section);
  collect_cmdline(root, section);
  collect_kernel_log(root, section);
  return section;
}

}  // namespace kdrift
