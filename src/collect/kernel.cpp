#include "collect/kernel.h"

#include "collect/cmdline.h"
#include "collect/facts.h"
#include "collect/kernel_config.h"
#include "collect/proc_version.h"

namespace kdrift {
namespace {

// osrelease and version from /proc/sys/kernel, or, for what a dump lacks there, from
// /proc/version, which holds the same two strings.
void put_release_and_version(Json& kernel, const SysRoot& root) {
  std::optional<Result<ProcVersion>> fallback;  // read at the first key that needs it
  constexpr std::pair<std::string_view, std::string_view> kKeys[] = {
      {"release", "/proc/sys/kernel/osrelease"}, {"version", "/proc/sys/kernel/version"}};
  for (const auto& [key, path] : kKeys) {
    auto value = root.read_value(path);
    if (value) {
      kernel[std::string(key)] = *value;
      continue;
    }
    if (!fallback) {
      auto text = root.read_value("/proc/version");
      fallback = text ? parse_proc_version(*text) : Result<ProcVersion>(text.error());
    }
    if (const auto& parsed = *fallback) {
      kernel[std::string(key)] = key == "release" ? parsed->release : parsed->version;
    } else {
      mark_unavailable(kernel, key, value.error().describe() + "; " + parsed.error().describe());
    }
  }
}

// The x86 boot protocol's type_of_loader byte in the boot_params the kernel was started with
// (Documentation/arch/x86/boot.rst): the loader's id in the high nibble, 0xD for kexec (kexec-tools
// and kexec_file_load alike), 0x7 for GRUB, 0xB for QEMU. Other architectures have no such file.
constexpr std::string_view kBootParams = "/sys/kernel/boot_params/data";
constexpr size_t kTypeOfLoaderOffset = 0x210;

void put_loader_type(Json& kernel, const SysRoot& root) {
  auto data = root.read_head(kBootParams, kTypeOfLoaderOffset + 1);
  if (!data) return mark_unavailable(kernel, "loader_type", data.error());
  if (data->size() <= kTypeOfLoaderOffset) {
    return mark_unavailable(kernel, "loader_type",
                            std::string(kBootParams) + " holds " + std::to_string(data->size()) +
                                " bytes, too few for the boot protocol's setup header");
  }
  kernel["loader_type"] = static_cast<unsigned char>((*data)[kTypeOfLoaderOffset]);
}

}  // namespace

Json collect_kernel(const SysRoot& root) {
  Json kernel = Json::object();
  put_release_and_version(kernel, root);
  put_text(kernel, "boot_id", root, "/proc/sys/kernel/random/boot_id");
  put_int(kernel, "tainted", root, "/proc/sys/kernel/tainted");
  // "[none] integrity confidentiality": the bracketed word is in force; it decides whether kexec
  // and BPF are allowed, which later stages need to know.
  put_text(kernel, "lockdown", root, "/sys/kernel/security/lockdown");
  // Whether a kexec started this kernel: devices the firmware did not reset can come up wrong,
  // which the boot history and the bisect's choice of mode look for.
  put_loader_type(kernel, root);

  if (auto raw = root.read_shared("/proc/cmdline")) {
    kernel["cmdline"] = cmdline_to_json(*raw, parse_cmdline(*raw));
  } else {
    mark_unavailable(kernel, "cmdline", raw.error());
  }

  const std::string release =
      kernel.contains("release") ? kernel["release"].get<std::string>() : std::string();
  kernel["config"] = collect_kernel_config(root, release);
  return kernel;
}

}  // namespace kdrift
