#include "kernel_facts/pci_link.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kVerdict = "link_degraded";

struct LinkState {
  std::optional<double> current_speed, max_speed;
  std::optional<int64_t> current_width, max_width;

  bool complete() const { return current_speed && max_speed && current_width && max_width; }
  bool operator==(const LinkState&) const = default;
};

// "8.0 GT/s PCIe" (older kernels: "8 GT/s", "Unknown speed" when the link is down).
std::optional<double> parse_speed_text(std::string_view text) {
  const auto space = text.find(' ');
  if (space == std::string_view::npos || text.substr(space + 1, 4) != "GT/s") return std::nullopt;
  return parse_double(text.substr(0, space));
}

std::optional<double> speed_at(const Json& link, std::string_view key) {
  const auto text = string_at(link, {key});
  return text ? parse_speed_text(*text) : std::nullopt;
}

// One end of a link as the facts describe it.
struct End {
  Json* json = nullptr;
  std::optional<LinkState> link;  // none when unknown or when sysfs and registers disagree
  std::optional<bool> port;       // the upstream end (a root or switch downstream port)
  std::string parent;             // the function above on the path, "" on a root bus
};

// The kernel's view (sysfs) when complete, else the registers'; none when the two disagree.
std::optional<LinkState> link_state(Json& device, const Json& link) {
  std::optional<LinkState> state;
  const LinkState sysfs{speed_at(link, "current_link_speed"), speed_at(link, "max_link_speed"),
                        integer_member(link, "current_link_width"),
                        integer_member(link, "max_link_width")};
  if (sysfs.complete()) state = sysfs;
  const Json* config = object_member(link, "config");
  if (config == nullptr) return state;
  const LinkState registers{
      number_member(*config, "current_speed_gts"), number_member(*config, "max_speed_gts"),
      integer_member(*config, "current_width"), integer_member(*config, "max_width")};
  if (state && registers.complete() && !(*state == registers)) {
    device["unavailable"][std::string(kVerdict)] =
        "sysfs and the PCIe capability registers disagree on the link";
    return std::nullopt;
  }
  return state || !registers.complete() ? state : registers;
}

// Every function with a link, its facts read and its parent found from the upstream paths.
std::map<std::string, End> ends_of(Json& devices) {
  std::map<std::string, std::string> parents;
  for (const auto& [address, device] : devices.items()) {
    const Json& upstream = array_at(device, {"upstream"});
    std::string parent;
    for (const auto& bridge : upstream) {
      if (!bridge.is_string()) break;
      parents.emplace(bridge.get<std::string>(), parent);
      parent = bridge.get<std::string>();
    }
    parents[address] = parent;
  }
  std::map<std::string, End> ends;
  for (auto& [address, device] : devices.items()) {
    if (!device.is_object()) continue;
    device.erase(std::string(kVerdict));
    device.erase("link_partner");
    if (auto derived = device.find("derived"); derived != device.end() && derived->is_object()) {
      derived->erase(std::string(kVerdict));
      if (derived->empty()) device.erase(derived);
    }
    if (auto unavailable = device.find("unavailable"); unavailable != device.end()) {
      unavailable->erase(std::string(kVerdict));
      if (unavailable->empty()) device.erase(unavailable);
    }
    const Json* link = object_member(device, "link");
    if (link == nullptr) continue;
    End end{&device, link_state(device, *link), std::nullopt, parents[address]};
    if (const auto type = string_at(device, {"pcie_type"}))
      end.port = *type == "root_port" || *type == "downstream_port";
    ends.emplace(address, std::move(end));
  }
  return ends;
}

void unknown(End& end, const std::string& why) {
  Json& device = *end.json;
  if (device.contains(kVerdict)) return;  // judged through another function
  if (!device.contains("unavailable") || !device["unavailable"].contains(kVerdict)) {
    device["unavailable"][std::string(kVerdict)] = why;
  }
}

void judge(const std::string& address, End& device, std::map<std::string, End>& ends) {
  if (!device.port) {
    unknown(device, "PCIe device/port type unknown: the capability registers were not read");
    return;
  }
  if (*device.port) return;  // judged from the function below it
  const auto above = ends.find(device.parent);
  End* port = above != ends.end() ? &above->second : nullptr;
  if (port != nullptr && !port->port) {
    unknown(device, "the type of the port above is unknown");
    unknown(*port, "its PCIe port type is unknown");
    return;
  }
  if (port != nullptr && !*port->port) port = nullptr;  // no port above: judged alone
  if (!device.link || (port != nullptr && !port->link)) {
    unknown(device, "link speed or width unknown at one end");
    if (port != nullptr) unknown(*port, "link speed or width unknown at one end");
    return;
  }
  LinkState limit = *device.link;
  if (port != nullptr) {
    limit.max_speed = std::min(*limit.max_speed, *port->link->max_speed);
    limit.max_width = std::min(*limit.max_width, *port->link->max_width);
  }
  const bool degraded =
      *limit.current_speed < *limit.max_speed || *limit.current_width < *limit.max_width;
  // Provenance (docs/snapshot.md): the verdict is worked out from both ends' link facts.
  Json inputs = {"pci.devices." + address + ".link"};
  if (port != nullptr) inputs.push_back("pci.devices." + above->first + ".link");
  (*device.json)[std::string(kVerdict)] = degraded;
  (*device.json)["derived"][std::string(kVerdict)] = inputs;
  if (port != nullptr) {
    (*device.json)["link_partner"] = above->first;
    (*port->json)["link_partner"] = address;
    (*port->json)[std::string(kVerdict)] = degraded;
    (*port->json)["derived"][std::string(kVerdict)] = inputs;
  }
}

}  // namespace

void judge_pci_links(Json& pci) {
  if (!pci.is_object()) return;
  const auto devices = pci.find("devices");
  if (devices == pci.end() || !devices->is_object()) return;
  auto ends = ends_of(*devices);
  for (auto& [address, end] : ends)
    judge(address, end, ends);
  for (auto& [address, end] : ends) {
    if (end.port.value_or(false) && !end.json->contains(kVerdict)) {
      unknown(end, "no function below this port was looked at");
    }
  }
}

}  // namespace kdrift
