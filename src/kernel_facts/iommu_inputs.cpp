#include "kernel_facts/iommu_inputs.h"

#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

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

}  // namespace

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
  inputs.cmdline_known = cmdline != nullptr;
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

}  // namespace kdrift
