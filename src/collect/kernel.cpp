#include "collect/kernel.h"

#include "collect/cmdline.h"
#include "collect/facts.h"
#include "collect/kernel_config.h"

namespace kdrift {

Json collect_kernel(const SysRoot& root) {
  Json kernel = Json::object();
  put_text(kernel, "release", root, "/proc/sys/kernel/osrelease");
  put_text(kernel, "version", root, "/proc/sys/kernel/version");
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
