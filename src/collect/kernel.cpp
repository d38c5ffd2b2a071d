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

}  // namespace

Json collect_kernel(const SysRoot& root) {
  Json kernel = Json::object();
  put_release_and_version(kernel, root);
  put_text(kernel, "boot_id", root, "/proc/sys/kernel/random/boot_id");
  put_int(kernel, "tainted", root, "/proc/sys/kernel/tainted");
  // "[none] integrity confidentiality": the bracketed word is in force; it decides whether kexec
  // and BPF are allowed, which later stages need to know.
  put_text(kernel, "lockdown", root, "/sys/kernel/security/lockdown");

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
