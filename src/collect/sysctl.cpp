#include "collect/sysctl.h"

#include <algorithm>

#include "collect/facts.h"

namespace kdrift {
namespace {

// Named as sysctl(8) prints them; all are integers.
constexpr std::string_view kSysctls[] = {
    "fs.aio-max-nr",
    "fs.aio-nr",
    "kernel.dmesg_restrict",
    "kernel.io_uring_disabled",
    "kernel.io_uring_group",
    "kernel.kexec_load_disabled",
    "kernel.perf_event_paranoid",
    "kernel.sched_autogroup_enabled",
    "kernel.unprivileged_bpf_disabled",
    "vm.dirty_background_bytes",
    "vm.dirty_background_ratio",
    "vm.dirty_bytes",
    "vm.dirty_expire_centisecs",
    "vm.dirty_ratio",
    "vm.dirty_writeback_centisecs",
    "vm.swappiness",
    "vm.vfs_cache_pressure",
};

}  // namespace

std::string sysctl_path(std::string_view name) {
  std::string path = "/proc/sys/" + std::string(name);
  std::replace(path.begin(), path.end(), '.', '/');
  return path;
}

Json collect_sysctl(const SysRoot& root) {
  Json sysctl = Json::object();
  for (const auto name : kSysctls)
    put_int(sysctl, name, root, sysctl_path(name));
  return sysctl;
}

}  // namespace kdrift
