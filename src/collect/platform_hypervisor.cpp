#include "collect/platform_hypervisor.h"

#include <optional>

#include "collect/cpu_identity.h"
#include "collect/facts.h"
#include "util/text.h"

namespace kdrift {
namespace {

const std::string kDeviceTree = "/proc/device-tree";

// Device-tree properties are NUL-terminated strings, lists of them for "compatible".
std::vector<std::string> device_tree_strings(const SysRoot& root, const std::string& property) {
  auto raw = root.read(kDeviceTree + "/" + property, 4096);
  return raw ? split(*raw, '\0') : std::vector<std::string>{};
}

bool compatible_with(const SysRoot& root, std::string_view name) {
  for (const auto& entry : device_tree_strings(root, "compatible")) {
    if (entry == name) return true;
  }
  return false;
}

Json finding(std::string_view vendor, std::string_view type, std::string evidence) {
  Json found = {{"type", type}, {"evidence", std::move(evidence)}};
  if (vendor.empty()) {
    mark_unavailable(found, "vendor", "bare metal: no hypervisor");
  } else {
    found["vendor"] = vendor;
  }
  return found;
}

std::optional<Json> power_hypervisor(const SysRoot& root) {
  if (root.exists("/proc/iSeries")) {
    return finding("OS/400", "para", "/proc/iSeries exists (legacy iSeries partition)");
  }
  if (compatible_with(root, "ibm,powernv")) {
    return finding("", "none", kDeviceTree + "/compatible has ibm,powernv (PowerNV, bare metal)");
  }
  if (root.exists(kDeviceTree + "/ibm,partition-name") &&
      root.exists(kDeviceTree + "/hmc-managed?") &&
      !root.exists(kDeviceTree + "/chosen/qemu,graphic-width")) {
    const auto name = device_tree_strings(root, "ibm,partition-name");
    // A partition named "full" owns the whole machine.
    const bool full = !name.empty() && name.front() == "full";
    return finding("pHyp", full ? "none" : "para",
                   kDeviceTree + "/ibm,partition-name and hmc-managed? exist (PowerVM LPAR)");
  }
  if (compatible_with(root, "qemu,pseries")) {
    return finding("KVM", "para", kDeviceTree + "/compatible has qemu,pseries");
  }
  return std::nullopt;
}

std::optional<Json> s390_hypervisor(const SysRoot& root) {
  const std::string path = "/proc/sysinfo";
  auto sysinfo = root.read(path);
  if (!sysinfo) return std::nullopt;
  // An LPAR of PR/SM unless a "VMnn Control Program:" line names the guest's own hypervisor; the
  // first such line is the innermost one.
  for (const auto& line : split_lines(*sysinfo)) {
    const auto at = line.find("Control Program:");
    if (at == std::string::npos) continue;
    const std::string name = join(split_whitespace(line.substr(at + 16)), " ");
    Json found = finding(name.find("KVM") != std::string::npos ? "KVM" : "IBM", "full",
                         path + ": " + join(split_whitespace(line), " "));
    found["hypervisor"] = name;
    return found;
  }
  Json found = finding("IBM", "full", path + " has no \"Control Program\" line: an LPAR");
  found["hypervisor"] = "PR/SM";
  return found;
}

// pSeries is the platform of a partition under a PAPR hypervisor; without the device tree the
// dump does not say whether that is PowerVM or KVM. lscpu reports nothing in this case.
std::optional<Json> papr_partition(const SysRoot& root) {
  const auto identity = read_cpu_identity(root);
  const bool pseries = identity && identity->contains("powerpc") &&
                       (*identity)["powerpc"].value("platform", "") == "pSeries";
  const bool lparcfg = root.exists("/proc/ppc64/lparcfg");
  if (!pseries && !lparcfg) return std::nullopt;
  Json found = {{"type", "para"},
                {"evidence", lparcfg ? "/proc/ppc64/lparcfg exists (a PAPR partition)"
                                     : "/proc/cpuinfo: platform pSeries (a PAPR partition)"}};
  mark_unavailable(found, "vendor",
                   "PowerVM or KVM: " + kDeviceTree +
                       " (ibm,partition-name, compatible) is needed "
                       "to tell which");
  return found;
}

}  // namespace

Json platform_hypervisor(const SysRoot& root) {
  for (const auto detect : {power_hypervisor, s390_hypervisor, papr_partition}) {
    if (auto found = detect(root)) return std::move(*found);
  }
  Json none = Json::object();
  mark_unavailable(none, "vendor",
                   "none of /proc/iSeries, " + kDeviceTree +
                       " (ibm,partition-name, compatible), /proc/sysinfo, /proc/ppc64/lparcfg or a "
                       "pSeries platform line: no POWER or s390 hypervisor shows");
  return none;
}

}  // namespace kdrift
