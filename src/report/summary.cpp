#include "report/summary.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "report/text_table.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr size_t kMaxUnavailableLines = 40;

void collect_unavailable(const Json& node, const std::string& prefix,
                         std::vector<std::string>& lines) {
  if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) {
      collect_unavailable(node[i], prefix + "[" + std::to_string(i) + "]", lines);
    }
    return;
  }
  if (!node.is_object()) return;
  for (const auto& [key, value] : node.items()) {
    if (key == "unavailable" && value.is_object()) {
      // One line per reason: an empty device's five unread keys are one fact about it.
      std::map<std::string, std::vector<std::string>> keys_by_reason;
      for (const auto& [what, why] : value.items())
        keys_by_reason[text_of(why)].push_back(what);
      for (const auto& [why, keys] : keys_by_reason) {
        const std::string names = keys.size() == 1 ? keys[0] : "{" + join(keys, ", ") + "}";
        lines.push_back(prefix + "." + names + ": " + why);
      }
    } else {
      collect_unavailable(value, prefix.empty() ? key : prefix + "." + key, lines);
    }
  }
}

class Summary {
 public:
  Summary(const Json& snapshot, bool colour)
      : s_(snapshot), bold_(colour ? "\033[1m" : ""), reset_(colour ? "\033[0m" : "") {}

  std::string render() {
    kernel();
    iommu();
    nvme();
    block();
    pci();
    cpu();
    system();
    unavailable();
    return out_.str();
  }

 private:
  void heading(std::string_view title) { out_ << "\n" << bold_ << title << reset_ << "\n"; }
  // value may hold object keys (IOMMU unit names) beside text_of's values.
  void row(std::string_view label, const std::string& value) {
    out_ << "  " << label << ": " << terminal_safe(value) << "\n";
  }

  void kernel() {
    out_ << bold_ << "Kernel" << reset_ << "\n";
    row("release", text_at(s_, {"kernel", "release"}));
    row("command line", text_at(s_, {"kernel", "cmdline", "raw"}));
    row("config", text_at(s_, {"kernel", "config", "source"}, "unavailable"));
    const Json* symbols = at(s_, {"kernel", "config", "symbols"});
    if (symbols == nullptr) return;
    std::string relevant;
    for (const char* name :
         {"CONFIG_IO_URING", "CONFIG_INTEL_IOMMU", "CONFIG_INTEL_IOMMU_DEFAULT_ON",
          "CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF", "CONFIG_AMD_IOMMU",
          "CONFIG_IOMMU_DEFAULT_PASSTHROUGH", "CONFIG_IOMMU_DEFAULT_DMA_STRICT",
          "CONFIG_IOMMU_DEFAULT_DMA_LAZY", "CONFIG_BLK_DEV_NVME"}) {
      if (const auto it = symbols->find(name); it != symbols->end()) {
        relevant += std::string(relevant.empty() ? "" : " ") + (name + 7) + "=" + text_of(*it);
      }
    }
    row("I/O symbols", relevant);
  }

  void iommu() {
    heading("IOMMU (mode in effect per block device)");
    const Json* units = at(s_, {"iommu", "units"});
    std::string names;
    if (units != nullptr) {
      for (const auto& [name, unit] : units->items()) {
        names += (names.empty() ? "" : ", ") + name + " (" + text_at(unit, {"type"}) + ")";
      }
    }
    row("units", names.empty() ? "none" : names);
    const Json* cmdline = at(s_, {"iommu", "cmdline"});
    row("command line", cmdline != nullptr && !cmdline->empty() ? text_of(*cmdline) : "none");
    Table table({"device", "pci", "group", "domain", "mode"});
    if (const Json* devices = at(s_, {"iommu", "devices"}); devices && devices->is_array()) {
      for (const auto& device : *devices) {
        if (!device.contains("pci")) continue;  // loop, zram, dm: no DMA of their own
        table.add({text_at(device, {"device"}), text_at(device, {"pci"}),
                   text_at(device, {"iommu_group"}, "-"), text_at(device, {"domain_type"}, "-"),
                   text_at(device, {"mode"})});
      }
    }
    if (table.empty()) {
      row("devices", "no block device behind a PCI function");
    } else {
      table.render(out_);
    }
  }

  void nvme() {
    heading("NVMe");
    const Json* parameters = at(s_, {"nvme", "parameters", "nvme"});
    if (parameters == nullptr) {
      // What the capture found: "not loaded", "built-in" without parameters, or why it cannot
      // say (a tree that did not collect /sys/module).
      const std::string state = text_at(s_, {"nvme", "driver"}, "");
      row("driver", !state.empty()
                        ? state
                        : "unknown (" + text_at(s_, {"nvme", "unavailable", "driver"}) + ")");
      return;
    }
    row("nvme parameters", "poll_queues=" + text_at(*parameters, {"poll_queues"}) +
                               " write_queues=" + text_at(*parameters, {"write_queues"}) +
                               " io_queue_depth=" + text_at(*parameters, {"io_queue_depth"}));
    Table table({"controller", "model", "firmware", "numa", "queues default/read/poll"});
    if (const Json* controllers = at(s_, {"nvme", "controllers"})) {
      for (const auto& [name, controller] : controllers->items()) {
        table.add({name, text_at(controller, {"model"}), text_at(controller, {"firmware_rev"}),
                   text_at(controller, {"numa_node"}),
                   text_at(controller, {"queues", "default"}) + "/" +
                       text_at(controller, {"queues", "read"}) + "/" +
                       text_at(controller, {"queues", "poll"})});
      }
    }
    if (!table.empty()) table.render(out_);
  }

  void block() {
    heading("Block queues");
    Table table({"device", "sched", "nomerges", "ra_kb", "rot", "io_poll", "wbt_us", "nr_req",
                 "max_kb", "cache", "size"});
    const Json* devices = at(s_, {"block", "devices"});
    if (devices == nullptr) return;
    for (const auto& [name, device] : devices->items()) {
      if (const Json* size = at(device, {"size_bytes"}); size && size->is_number() && *size == 0) {
        continue;  // unattached loop devices and the like
      }
      const Json& queue = device.contains("queue") ? device["queue"] : Json::object();
      table.add({name, text_at(device, {"scheduler", "active"}, "-"), text_at(queue, {"nomerges"}),
                 text_at(queue, {"read_ahead_kb"}), text_at(queue, {"rotational"}),
                 text_at(queue, {"io_poll"}), text_at(queue, {"wbt_lat_usec"}, "-"),
                 text_at(queue, {"nr_requests"}), text_at(queue, {"max_sectors_kb"}),
                 text_at(queue, {"write_cache"}), human_bytes(at(device, {"size_bytes"}))});
    }
    table.render(out_);
  }

  static std::string human_bytes(const Json* bytes) {
    if (bytes == nullptr || !bytes->is_number()) return "?";
    double value = bytes->get<double>();
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
      value /= 1024;
      ++unit;
    }
    std::ostringstream text;
    text.precision(value < 10 ? 2 : 0);
    text << std::fixed << value << " " << units[unit];
    return text.str();
  }

  void pci() {
    heading("PCI storage path");
    Table table({"address", "role", "name", "driver", "link now", "link max", "numa", "MPS/MRRS"});
    const Json* devices = at(s_, {"pci", "devices"});
    if (devices == nullptr) {
      row("devices", "unavailable");
      return;
    }
    for (const auto& [address, device] : devices->items()) {
      const std::string degraded =
          at(device, {"link_degraded"}) && device["link_degraded"] == true ? " (degraded)" : "";
      table.add({address, text_at(device, {"role"}), text_at(device, {"device_name"}),
                 text_at(device, {"driver"}, "-"),
                 text_at(device, {"link", "current_link_speed"}, "-") + " x" +
                     text_at(device, {"link", "current_link_width"}, "-") + degraded,
                 text_at(device, {"link", "max_link_speed"}, "-") + " x" +
                     text_at(device, {"link", "max_link_width"}, "-"),
                 text_at(device, {"numa_node"}),
                 text_at(device, {"max_payload_bytes"}, "-") + "/" +
                     text_at(device, {"max_read_request_bytes"}, "-")});
    }
    table.render(out_);
  }

  void cpu() {
    heading("CPU");
    row("model", text_at(s_, {"cpu", "processor", "model_name"}));
    row("online", text_at(s_, {"cpu", "cpus", "online", "list"}));
    row("smt", text_at(s_, {"cpu", "smt", "control"}));
    const Json* governors = at(s_, {"cpu", "cpufreq", "summary", "scaling_governor"});
    row("governor", governors != nullptr ? text_of(*governors) : "no cpufreq");
    row("cpuidle", text_at(s_, {"cpu", "cpuidle", "driver"}, "none") + " / " +
                       text_at(s_, {"cpu", "cpuidle", "governor"}, "-"));
  }

  void system() {
    heading("NUMA, sysctls, environment");
    const Json* nodes = at(s_, {"numa", "nodes"});
    row("numa nodes", nodes != nullptr ? std::to_string(nodes->size()) : "?");
    for (const char* key : {"kernel.io_uring_disabled", "fs.aio-max-nr", "fs.aio-nr"}) {
      row(key, text_at(s_, {"sysctl", key}));
    }
    row("transparent hugepages",
        text_at(s_, {"memory", "transparent_hugepage", "enabled", "active"}));
    row("seccomp", text_at(s_, {"environment", "process", "seccomp"}));
    row("irqbalance running", text_at(s_, {"environment", "services", "irqbalance", "running"}));
    row("tuned running", text_at(s_, {"environment", "services", "tuned", "running"}));
  }

  void unavailable() {
    std::vector<std::string> lines;
    for (const auto& [section, value] : s_.items()) {
      if (value.is_object()) collect_unavailable(value, section, lines);
    }
    if (lines.empty()) return;
    heading("Could not be read (" + std::to_string(lines.size()) + ")");
    for (size_t i = 0; i < lines.size() && i < kMaxUnavailableLines; ++i) {
      out_ << "  " << terminal_safe(lines[i]) << "\n";
    }
    if (lines.size() > kMaxUnavailableLines) {
      out_ << "  … and " << lines.size() - kMaxUnavailableLines
           << " more: see \"unavailable\" in `kdrift capture`\n";
    }
  }

  const Json& s_;
  std::string bold_;
  std::string reset_;
  std::ostringstream out_;
};

}  // namespace

std::string render_summary(const Json& snapshot, bool colour) {
  return Summary(snapshot, colour).render();
}

}  // namespace kdrift
