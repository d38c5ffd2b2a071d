#pragma once
// The IOMMU mode storage DMA is in, predicted from the kernel build (Kconfig) and the command
// line the way the kernel decides it, for snapshots without per-device IOMMU group types (a dump
// without /sys/kernel/iommu_groups, disks not on PCI). x86's Intel (VT-d) and AMD (AMD-Vi)
// drivers; another architecture's IOMMU is not predicted.
//
// The kernel's order (arch/x86/kernel/pci-dma.c, drivers/iommu/iommu.c, intel/iommu.c,
// amd/init.c; Documentation/admin-guide/kernel-parameters.txt):
//  1. iommu=off turns every x86 IOMMU off; intel_iommu=off / amd_iommu=off the vendor's driver.
//  2. iommu=pt / iommu.passthrough=1 give identity domains: nothing is translated, whether or
//     not the driver is on.
//  3. A driver that is not built in does nothing, parameters included. Intel's is on with
//     intel_iommu=on, else with CONFIG_INTEL_IOMMU_DEFAULT_ON (Debian's choice
//     CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF too, except for the integrated GPU), else off
//     unless the firmware opts in; AMD's is on wherever it is built and the hardware has one.
//  4. The default domain: iommu=nopt / iommu.passthrough=0 translate, else
//     CONFIG_IOMMU_DEFAULT_PASSTHROUGH decides.
//  5. Translated domains are strict with intel_iommu=strict or amd_iommu=fullflush (deprecated
//     spellings that force it), else as iommu.strict=0|1 says, else strict only with
//     CONFIG_IOMMU_DEFAULT_DMA_STRICT (lazy: DMA-FQ). Both drivers force strict when the IOMMU
//     caches not-present entries, as emulated ones do: VT-d's Caching Mode (commit 29b32839725f,
//     "iommu/vt-d: Do not use flush-queue when caching-mode is on"; later kernels only with
//     second-level tables, so it counts only without scalable mode), AMD's NpCache; without the
//     registers, an AMD IOMMU in a virtual machine is taken to report NpCache.
// Parameters are parsed as the kernel does: comma-separated options, booleans by kstrtobool.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift {

enum class IommuMode { kOff, kPassthrough, kTranslatedLazy, kTranslatedStrict, kUnknown };

// "off", "passthrough", "translated-lazy", "translated-strict", "unknown": the spelling of
// iommu.devices[].mode where the two share a meaning.
std::string_view iommu_mode_name(IommuMode mode);

enum class IommuVendor { kIntel, kAmd, kUnknown };

struct IommuInputs {
  // intel_iommu, amd_iommu, iommu, iommu.strict, iommu.passthrough as given (the last of a
  // repeated key); a bare flag is an empty text.
  std::map<std::string, std::string> cmdline;
  // Whether the command line was captured at all: without it, no parameter is not "none given".
  bool cmdline_known = true;
  // CONFIG_X -> "y" / "m" / "n" / value; none when no config was captured.
  std::optional<std::map<std::string, std::string>> kconfig;
  IommuVendor vendor = IommuVendor::kUnknown;
  bool virtualized = false;
  // Whether the vendor's IOMMU unit reports caching not-present entries (VT-d Caching Mode,
  // capability register bit 7; AMD NpCache, capability header bit 26), as emulated IOMMUs do:
  // both drivers then force strict. None when no unit's registers were captured.
  std::optional<bool> caches_not_present;
  // Whether /sys/class/iommu lists a unit; none when it was not read. A driver that is on
  // registers its units there, so an empty list means no IOMMU is on, whatever was asked.
  std::optional<bool> units_registered;
};

struct IommuPrediction {
  IommuMode mode = IommuMode::kUnknown;
  // Each step that decided, in the kernel's order: "intel_iommu=on (command line)".
  std::vector<std::string> basis;
  // The command-line parameters that decide the mode whatever the build's defaults say
  // ("iommu=pt"); empty when a Kconfig default takes part.
  std::vector<std::string> pinned_by;
};

IommuPrediction predict_iommu_mode(const IommuInputs& inputs);

}  // namespace kdrift
