#include "kernel_facts/iommu_mode.h"

#include <algorithm>
#include <array>

namespace kdrift {
namespace {

// Where a step's fact comes from. Only a Kconfig default can be overridden on the command
// line; whether a driver is built at all cannot, and hardware quirks apply whatever is asked.
enum class Source { kCommandLine, kDefault, kBuild, kHardware };

struct Step {
  std::string what;  // the parameter or symbol, as written: "iommu=pt"
  std::string why;   // what it does here, or empty
  Source source = Source::kDefault;
};

struct Path {
  IommuMode mode = IommuMode::kUnknown;
  std::vector<Step> steps;
  // Set where one parameter rules out translation whatever else the build says (iommu=pt
  // with the driver off by default translates nothing either).
  std::string ruled_out_by;
};

struct Driver {
  std::string_view name;
  std::string_view param;  // its own command-line parameter
  std::string_view built;  // the symbol that builds it in (both are bool symbols)
  // Symbols that turn it on by default; none: it is on wherever it is built.
  std::array<std::string_view, 2> default_on;
  std::string_view forced_strict;  // the deprecated option of its parameter that forces strict
  // The register bit by which its IOMMU says it caches not-present entries, which forces strict.
  std::string_view caching_bit;
  // Whether a virtual machine's IOMMU is taken to set that bit when the registers are unknown.
  bool caches_when_virtualized = false;
};

constexpr Driver kIntel{
    "Intel IOMMU",
    "intel_iommu",
    "CONFIG_INTEL_IOMMU",
    {"CONFIG_INTEL_IOMMU_DEFAULT_ON", "CONFIG_INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF"},
    "strict",
    "Caching Mode (capability bit 7)",
    false};
constexpr Driver kAmd{"AMD IOMMU", "amd_iommu", "CONFIG_AMD_IOMMU",
                      {},          "fullflush", "NpCache (capability bit 26)",
                      true};

std::string text_of(std::string_view view) {
  return std::string(view);
}

// The options of a comma-separated parameter, in the order the kernel's parsers walk them.
std::vector<std::string> options(const IommuInputs& inputs, std::string_view key) {
  std::vector<std::string> list;
  const auto found = inputs.cmdline.find(text_of(key));
  if (found == inputs.cmdline.end()) return list;
  std::string_view text = found->second;
  while (!text.empty()) {
    const auto comma = text.find(',');
    if (comma != 0) list.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return list;
}

bool has_option(const std::vector<std::string>& list, std::string_view option) {
  return std::find(list.begin(), list.end(), option) != list.end();
}

// The last of two opposite options given ("on"/"off"), empty when neither is.
std::string last_of(const std::vector<std::string>& list, std::string_view one,
                    std::string_view other) {
  std::string last;
  for (const auto& option : list) {
    if (option == one || option == other) last = option;
  }
  return last;
}

// kstrtobool(): the first character decides, "on"/"off" by the second; anything else (a bare
// flag included) is rejected and leaves the default.
std::optional<bool> kernel_bool(std::string_view text) {
  if (text.empty()) return std::nullopt;
  switch (text[0]) {
    case 'y':
    case 'Y':
    case '1':
      return true;
    case 'n':
    case 'N':
    case '0':
      return false;
    case 'o':
    case 'O':
      if (text.size() > 1 && (text[1] == 'n' || text[1] == 'N')) return true;
      if (text.size() > 1 && (text[1] == 'f' || text[1] == 'F')) return false;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<std::string> parameter(const IommuInputs& inputs, std::string_view key) {
  const auto found = inputs.cmdline.find(text_of(key));
  if (found == inputs.cmdline.end()) return std::nullopt;
  return found->second;
}

std::string symbol(const IommuInputs& inputs, std::string_view name) {
  if (!inputs.kconfig) return {};
  const auto found = inputs.kconfig->find(text_of(name));
  return found != inputs.kconfig->end() ? found->second : std::string();
}

// The default domain as the command line asks for it: iommu=pt|nopt (x86) and
// iommu.passthrough= set the same switch. A value of none means the two disagree: the later
// one on the command line wins, and the snapshot keeps no order between different keys.
struct PassthroughAsk {
  std::optional<bool> identity;
  std::string what;
};

std::optional<PassthroughAsk> passthrough_asked(const IommuInputs& inputs) {
  std::optional<PassthroughAsk> x86;
  const std::string pt = last_of(options(inputs, "iommu"), "pt", "nopt");
  if (!pt.empty()) x86 = PassthroughAsk{pt == "pt", "iommu=" + pt};
  std::optional<PassthroughAsk> generic;
  if (const auto value = parameter(inputs, "iommu.passthrough")) {
    if (const auto identity = kernel_bool(*value)) {
      generic = PassthroughAsk{*identity, "iommu.passthrough=" + *value};
    }
  }
  if (x86 && generic && x86->identity != generic->identity) {
    return PassthroughAsk{std::nullopt, x86->what + " and " + generic->what};
  }
  return x86 ? x86 : generic;
}

// Whether the driver is on; none when no config says whether it is built.
std::optional<bool> driver_enabled(const IommuInputs& inputs, const Driver& driver, bool asked_on,
                                   std::vector<Step>& steps) {
  if (!inputs.kconfig) {
    steps.push_back({"no kernel config", "whether the driver is built is unknown", Source::kBuild});
    return std::nullopt;
  }
  if (symbol(inputs, driver.built) != "y") {
    steps.push_back({text_of(driver.built) + " is not set",
                     "no " + text_of(driver.name) + " driver, its parameters do nothing",
                     Source::kBuild});
    return false;
  }
  if (asked_on) {
    steps.push_back({text_of(driver.param) + "=on", "", Source::kCommandLine});
    return true;
  }
  if (driver.default_on[0].empty()) {
    steps.push_back({text_of(driver.built) + "=y",
                     "on wherever the hardware has one, unless turned off", Source::kBuild});
    return true;
  }
  for (const auto name : driver.default_on) {
    if (!name.empty() && symbol(inputs, name) == "y") {
      steps.push_back({text_of(name) + "=y", "on by default", Source::kDefault});
      return true;
    }
  }
  steps.push_back({text_of(driver.default_on[0]) + " is not set",
                   "off by default, unless the firmware opts in", Source::kDefault});
  return false;
}

// Whether the default domain translates, once the command line did not ask for identity.
std::optional<bool> translated(const IommuInputs& inputs,
                               const std::optional<PassthroughAsk>& asked,
                               std::vector<Step>& steps) {
  if (asked) {
    steps.push_back({asked->what, "translated default domains", Source::kCommandLine});
    return true;
  }
  if (!inputs.kconfig) return std::nullopt;
  if (symbol(inputs, "CONFIG_IOMMU_DEFAULT_PASSTHROUGH") == "y") {
    steps.push_back(
        {"CONFIG_IOMMU_DEFAULT_PASSTHROUGH=y", "identity by default", Source::kDefault});
    return false;
  }
  steps.push_back(
      {"CONFIG_IOMMU_DEFAULT_PASSTHROUGH is not set", "translated by default", Source::kDefault});
  return true;
}

std::optional<bool> strict_invalidation(const IommuInputs& inputs, const Driver& driver,
                                        const std::vector<std::string>& own,
                                        std::vector<Step>& steps) {
  if (has_option(own, driver.forced_strict)) {
    steps.push_back({text_of(driver.param) + "=" + text_of(driver.forced_strict),
                     "deprecated spelling of iommu.strict=1, forces strict", Source::kCommandLine});
    return true;
  }
  if (const auto value = parameter(inputs, "iommu.strict")) {
    if (const auto strict = kernel_bool(*value)) {
      steps.push_back({"iommu.strict=" + *value, "", Source::kCommandLine});
      return strict;
    }
  }
  if (!inputs.kconfig) return std::nullopt;
  if (symbol(inputs, "CONFIG_IOMMU_DEFAULT_DMA_STRICT") == "y") {
    steps.push_back({"CONFIG_IOMMU_DEFAULT_DMA_STRICT=y", "strict by default", Source::kDefault});
    return true;
  }
  const bool lazy_symbol = symbol(inputs, "CONFIG_IOMMU_DEFAULT_DMA_LAZY") == "y";
  steps.push_back({lazy_symbol ? "CONFIG_IOMMU_DEFAULT_DMA_LAZY=y"
                               : "CONFIG_IOMMU_DEFAULT_DMA_STRICT is not set",
                   "lazy by default", Source::kDefault});
  return false;
}

Path driver_path(const IommuInputs& inputs, const Driver& driver) {
  Path path;
  if (has_option(options(inputs, "iommu"), "off")) {
    path.steps.push_back({"iommu=off", "every x86 IOMMU off", Source::kCommandLine});
    path.mode = IommuMode::kOff;
    path.ruled_out_by = "iommu=off";
    return path;
  }
  const auto own = options(inputs, driver.param);
  const std::string on_off = last_of(own, "on", "off");
  if (on_off == "off") {
    path.ruled_out_by = text_of(driver.param) + "=off";
    path.steps.push_back({path.ruled_out_by, "", Source::kCommandLine});
    path.mode = IommuMode::kOff;
    return path;
  }
  const auto asked = passthrough_asked(inputs);
  if (asked && !asked->identity.has_value()) {
    path.steps.push_back(
        {asked->what, "they disagree, and the later one wins", Source::kCommandLine});
    return path;
  }
  const bool identity = asked && *asked->identity;
  if (identity) {
    path.steps.push_back(
        {asked->what, "identity domains: nothing is translated", Source::kCommandLine});
    path.ruled_out_by = asked->what;
  }
  const auto enabled = driver_enabled(inputs, driver, on_off == "on", path.steps);
  if (!enabled) {
    // Identity or no driver: nothing is translated either way.
    path.mode = identity ? IommuMode::kPassthrough : IommuMode::kUnknown;
    return path;
  }
  if (!*enabled) {
    path.mode = IommuMode::kOff;
    return path;
  }
  if (identity) {
    path.mode = IommuMode::kPassthrough;
    return path;
  }
  const auto translating = translated(inputs, asked, path.steps);
  if (!translating || !*translating) {
    path.mode = translating ? IommuMode::kPassthrough : IommuMode::kUnknown;
    return path;
  }
  auto strict = strict_invalidation(inputs, driver, own, path.steps);
  if (strict && !*strict) {
    const std::string forces = "the " + text_of(driver.name) + " driver forces strict when the " +
                               "IOMMU reports " + text_of(driver.caching_bit) +
                               ", as emulated ones do";
    if (inputs.caches_not_present == true) {
      path.steps.push_back({text_of(driver.caching_bit), forces, Source::kHardware});
      strict = true;
    } else if (!inputs.caches_not_present && driver.caches_when_virtualized && inputs.virtualized) {
      path.steps.push_back({"a virtual machine", forces, Source::kHardware});
      strict = true;
    }
  }
  if (strict) path.mode = *strict ? IommuMode::kTranslatedStrict : IommuMode::kTranslatedLazy;
  return path;
}

std::string describe(const Step& step) {
  std::string text = step.what;
  if (!step.why.empty()) text += ": " + step.why;
  switch (step.source) {
    case Source::kCommandLine:
      return text + " (command line)";
    case Source::kDefault:
    case Source::kBuild:
      return text + " (Kconfig)";
    case Source::kHardware:
      return text;
  }
  return text;
}

IommuPrediction prediction_of(const Path& path) {
  IommuPrediction prediction;
  prediction.mode = path.mode;
  for (const auto& step : path.steps)
    prediction.basis.push_back(describe(step));
  const bool defaults_decide = std::any_of(path.steps.begin(), path.steps.end(), [](auto& step) {
    return step.source == Source::kDefault;
  });
  if (!path.ruled_out_by.empty()) {
    prediction.pinned_by.push_back(path.ruled_out_by);
    return prediction;
  }
  if (path.mode == IommuMode::kUnknown || defaults_decide) return prediction;
  for (const auto& step : path.steps) {
    if (step.source == Source::kCommandLine) prediction.pinned_by.push_back(step.what);
  }
  return prediction;
}

// Without the vendor, both drivers are asked; the prediction holds where they agree.
IommuPrediction either_vendor(const IommuInputs& inputs) {
  const IommuPrediction intel = prediction_of(driver_path(inputs, kIntel));
  const IommuPrediction amd = prediction_of(driver_path(inputs, kAmd));
  IommuPrediction merged;
  merged.mode = intel.mode == amd.mode ? intel.mode : IommuMode::kUnknown;
  merged.basis.push_back(intel.mode == amd.mode
                             ? "IOMMU vendor unknown: the Intel and AMD drivers agree"
                             : "IOMMU vendor unknown: the Intel driver gives " +
                                   text_of(iommu_mode_name(intel.mode)) + ", the AMD driver " +
                                   text_of(iommu_mode_name(amd.mode)));
  for (const auto* side : {&intel, &amd}) {
    for (const auto& line : side->basis) {
      if (!has_option(merged.basis, line)) merged.basis.push_back(line);
    }
  }
  if (merged.mode != IommuMode::kUnknown && !intel.pinned_by.empty() && !amd.pinned_by.empty()) {
    merged.pinned_by = intel.pinned_by;
    for (const auto& what : amd.pinned_by) {
      if (!has_option(merged.pinned_by, what)) merged.pinned_by.push_back(what);
    }
  }
  return merged;
}

}  // namespace

std::string_view iommu_mode_name(IommuMode mode) {
  switch (mode) {
    case IommuMode::kOff:
      return "off";
    case IommuMode::kPassthrough:
      return "passthrough";
    case IommuMode::kTranslatedLazy:
      return "translated-lazy";
    case IommuMode::kTranslatedStrict:
      return "translated-strict";
    case IommuMode::kUnknown:
      return "unknown";
  }
  return "unknown";
}

IommuPrediction predict_iommu_mode(const IommuInputs& inputs) {
  if (inputs.kconfig && symbol(inputs, "CONFIG_X86") != "y") {
    IommuPrediction other;
    other.basis.push_back("not an x86 kernel: only the Intel and AMD IOMMUs are predicted");
    return other;
  }
  if (inputs.units_registered == false) {
    IommuPrediction none;
    none.mode = IommuMode::kOff;
    none.basis.push_back("/sys/class/iommu lists no unit: no IOMMU is on");
    return none;
  }
  if (!inputs.cmdline_known) {
    IommuPrediction unknown;
    unknown.basis.push_back("the kernel command line was not captured");
    return unknown;
  }
  switch (inputs.vendor) {
    case IommuVendor::kIntel:
      return prediction_of(driver_path(inputs, kIntel));
    case IommuVendor::kAmd:
      return prediction_of(driver_path(inputs, kAmd));
    case IommuVendor::kUnknown:
      return either_vendor(inputs);
  }
  return either_vendor(inputs);
}

}  // namespace kdrift
