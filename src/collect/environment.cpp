#include "collect/environment.h"

#include <bpf/libbpf.h>

#include "collect/cpuinfo.h"
#include "collect/facts.h"
#include "collect/ids.h"
#include "collect/platform_hypervisor.h"
#include "util/text.h"

namespace kdrift {
namespace {

Json collect_virtualization(const SysRoot& root) {
  Json virtualization = Json::object();
  const auto block = first_cpuinfo_block(root);
  const auto flag = block ? has_cpu_flag(*block, "hypervisor") : std::nullopt;
  if (flag) {
    virtualization["cpuinfo_hypervisor_flag"] = *flag;
  } else {
    mark_unavailable(virtualization, "cpuinfo_hypervisor_flag",
                     block
                         ? std::string(kCpuinfoPath) + ": no \"flags\" in the first processor block"
                         : block.error().describe());
  }
  virtualization["platform_hypervisor"] = platform_hypervisor(root);
  // Written by Xen guests only.
  put_text(virtualization, "hypervisor_type", root, "/sys/hypervisor/type");

  const std::string dmi_dir = "/sys/class/dmi/id";
  if (auto listed = root.list(dmi_dir); !listed) {
    mark_unavailable(virtualization, "dmi",
                     listed.error().describe() +
                         " (no DMI tables: Firecracker and many arm64 machines have none)");
  } else {
    Json dmi = Json::object();
    for (const std::string name : {"sys_vendor", "product_name", "bios_vendor"}) {
      put_text(dmi, name, root, dmi_dir + "/" + name);
    }
    virtualization["dmi"] = std::move(dmi);
  }
  return virtualization;
}

// The fields of /proc/self/status a capture keeps, each with how its value is read.
struct StatusField {
  std::string_view key;
  std::string_view name;  // as /proc/<pid>/status spells it
  Result<Json> (*convert)(std::string_view value);
};

Result<Json> integer(std::string_view value) {
  if (const auto number = parse_int(value)) return Json(*number);
  return content_error("expected an integer, found " + quote_value(value));
}

Result<Json> id_list(std::string_view value) {
  auto ids = parse_id_list(value, "");
  if (!ids) return content_error("expected a list such as \"0-3,8\", found " + quote_value(value));
  return Json(std::move(*ids));
}

Result<Json> seccomp_mode(std::string_view value) {
  constexpr std::string_view kModes[] = {"disabled", "strict", "filter"};
  const auto mode = parse_int(value);
  if (mode && *mode >= 0 && *mode < 3) return Json(kModes[*mode]);
  return content_error("expected 0, 1 or 2, found " + quote_value(value));
}

// What the kernel enforces on this process: a seccomp filter can refuse io_uring_setup, and the
// allowed cpus and memory nodes decide where a probe may run.
void put_process_status(Json& process, const SysRoot& root) {
  constexpr StatusField kFields[] = {
      {"seccomp", "Seccomp", seccomp_mode},
      {"seccomp_filters", "Seccomp_filters", integer},  // since 5.9
      {"no_new_privs", "NoNewPrivs", integer},
      {"cpus_allowed", "Cpus_allowed_list", id_list},
      {"mems_allowed", "Mems_allowed_list", id_list},
  };
  const std::string path = "/proc/self/status";
  auto status = root.read(path);
  for (const auto& field : kFields) {
    if (!status) {
      mark_unavailable(process, field.key, status.error());
      continue;
    }
    const auto text = find_colon_field(*status, field.name);
    auto value = text ? field.convert(*text) : content_error("no such line");
    if (value) {
      process[std::string(field.key)] = std::move(*value);
    } else {
      mark_unavailable(process, field.key,
                       path + ": " + std::string(field.name) + ": " + value.error().context);
    }
  }
}

// The v2 hierarchy sits at /sys/fs/cgroup, or at /sys/fs/cgroup/unified beside v1 controllers
// (systemd's hybrid layout); its root always has cgroup.controllers.
void put_cgroup_v2(Json& v2, const SysRoot& root, const std::string& path) {
  std::string errors;
  for (const std::string mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    auto controllers = root.read_value(mount + "/cgroup.controllers");
    if (!controllers) {
      errors += (errors.empty() ? "" : "; ") + controllers.error().describe();
      continue;
    }
    v2["mount"] = mount;
    v2["mount_controllers"] = split_whitespace(*controllers);
    const std::string dir = path == "/" ? mount : mount + path;
    put_id_list(v2, "cpuset.cpus.effective", root, dir + "/cpuset.cpus.effective");
    for (const std::string file : {"io.max", "io.weight"}) {
      if (auto value = root.read_value(dir + "/" + file)) {
        v2[file] = *value;
      } else {
        const bool root_cgroup = path == "/" && value.error().code == ENOENT;
        mark_unavailable(
            v2, file,
            value.error().describe() + (root_cgroup ? " (the root cgroup has none)" : ""));
      }
    }
    return;
  }
  mark_unavailable(v2, "mount", "no cgroup v2 hierarchy: " + errors);
}

Json collect_cgroup(const SysRoot& root) {
  Json cgroup = Json::object();
  const std::string path = "/proc/self/cgroup";
  auto text = root.read(path);
  if (!text) {
    mark_unavailable(cgroup, "v2", text.error());
    return cgroup;
  }
  // "hierarchy-id:controllers:path"; v2 is the line with id 0 and no controllers.
  Json v1 = Json::object();
  for (const auto& line : split_lines(*text)) {
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) {
      mark_unavailable(cgroup, "v2",
                       path + ": expected id:controllers:path, found " + quote_value(line));
      return cgroup;
    }
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string member = line.substr(second + 1);
    if (controllers.empty()) {
      Json v2 = {{"path", member}};
      put_cgroup_v2(v2, root, member);
      cgroup["v2"] = std::move(v2);
    } else {
      v1[controllers] = member;
    }
  }
  if (!cgroup.contains("v2")) mark_unavailable(cgroup, "v2", path + " has no v2 (0::) line");
  if (!v1.empty()) cgroup["v1"] = std::move(v1);
  return cgroup;
}

// A process's name is 15 bytes at most, a kernel worker's up to 63; only two names matter here.
constexpr size_t kCommBytes = 64;

// irqbalance moves interrupts away from the cpus the NVMe queues were spread over; tuned switches
// governors and idle states. One pass over /proc finds both.
Json collect_services(const SysRoot& root) {
  Json irqbalance = Json::object();
  Json tuned = Json::object();
  if (auto names = root.list("/proc"); !names) {
    mark_unavailable(irqbalance, "running", names.error());
    mark_unavailable(tuned, "running", names.error());
  } else {
    bool irqbalance_running = false;
    bool tuned_running = false;
    size_t named = 0;
    for (const int pid : numbered_entries(*names, "")) {
      // A process may exit between the listing and the read: that one simply is not running.
      const auto comm =
          root.read_first_record("/proc/" + std::to_string(pid) + "/comm", kCommBytes);
      if (!comm) continue;
      ++named;
      const std::string_view name = trim(*comm);
      irqbalance_running = irqbalance_running || name == "irqbalance";
      tuned_running = tuned_running || name == "tuned";
    }
    if (named > 0) {
      irqbalance["running"] = irqbalance_running;
      tuned["running"] = tuned_running;
    } else {
      // A copied tree without process names (a sos report keeps only mountinfo) tells nothing.
      const std::string why = "no /proc/<pid>/comm in this root names a process";
      mark_unavailable(irqbalance, "running", why);
      mark_unavailable(tuned, "running", why);
    }
  }
  put_text(tuned, "active_profile", root, "/etc/tuned/active_profile");
  return {{"irqbalance", std::move(irqbalance)}, {"tuned", std::move(tuned)}};
}

Json library_versions() {
  return {
      {"libaio", {{"built_with", KDRIFT_LIBAIO_VERSION}}},
      {"libbpf", {{"built_with", KDRIFT_LIBBPF_VERSION}, {"loaded", libbpf_version_string()}}},
      {"libpci", {{"built_with", KDRIFT_LIBPCI_VERSION}}},
      {"liburing", {{"built_with", KDRIFT_LIBURING_VERSION}}},
  };
}

}  // namespace

Json collect_environment(const SysRoot& root) {
  Json environment = Json::object();
  put_text(environment, "hostname", root, "/proc/sys/kernel/hostname");
  environment["virtualization"] = collect_virtualization(root);
  Json process = Json::object();
  put_process_status(process, root);
  process["cgroup"] = collect_cgroup(root);
  environment["process"] = std::move(process);
  environment["services"] = collect_services(root);
  environment["libraries"] = library_versions();
  return environment;
}

}  // namespace kdrift
