#include "iobench/failure_cause.h"

#include <sys/resource.h>

#include <cstring>

#include "collect/sysctl.h"
#include "util/text.h"

namespace kdrift {
namespace {

std::optional<int> read_small_int(const SysRoot& root, const std::string& path) {
  auto value = root.read_value(path);
  if (!value) return std::nullopt;
  const auto number = parse_int(*value);
  if (!number || *number < INT32_MIN || *number > INT32_MAX) return std::nullopt;
  return static_cast<int>(*number);
}

std::string errno_name(int code) {
  switch (code) {
    case EPERM:
      return "EPERM";
    case EACCES:
      return "EACCES";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case ENOMEM:
      return "ENOMEM";
    case EINVAL:
      return "EINVAL";
    case EAGAIN:
      return "EAGAIN";
    case ENOSYS:
      return "ENOSYS";
    case EIO:
      return "EIO";
    case ENOSPC:
      return "ENOSPC";
    case EBADF:
      return "EBADF";
    default:
      return "errno " + std::to_string(code);
  }
}

std::string not_pollable(const EngineMode& mode, const FailureContext& context) {
  const std::string what = mode.hipri ? "RWF_HIPRI" : "IOPOLL";
  if (context.disk.empty()) return what + " needs a block device with poll queues under the target";
  if (context.stacked) {
    return context.disk + " is a stacked device (device-mapper or md): " + what +
           " needs the I/O to go to a pollable blk-mq queue directly";
  }
  if (context.bio_based) {
    return context.disk + " is bio-based (zram, brd, dm): it has no hardware queues to poll";
  }
  std::string cause = context.disk + " has no poll queues";
  if (context.io_poll) cause += " (queue/io_poll = " + std::to_string(*context.io_poll) + ")";
  if (context.nvme_poll_queues) {
    cause += "; nvme.poll_queues = " + std::to_string(*context.nvme_poll_queues) +
             (*context.nvme_poll_queues == 0
                  ? ": load nvme with poll_queues=N or boot with nvme.poll_queues=N"
                  : "");
  }
  return cause;
}

}  // namespace

FailureContext FailureContext::read(const SysRoot& root,
                                    const std::optional<BlockDeviceRef>& device) {
  FailureContext context;
  context.io_uring_disabled = read_small_int(root, sysctl_path("kernel.io_uring_disabled"));
  if (auto group = root.read_value(sysctl_path("kernel.io_uring_group"))) {
    context.io_uring_group = *group;
  }
  if (auto status = root.read("/proc/self/status")) {
    if (auto seccomp = find_colon_field(*status, "Seccomp")) {
      if (auto mode = parse_int(*seccomp)) context.seccomp_mode = static_cast<int>(*mode);
    }
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    context.memlock_limit = limit.rlim_cur;
  }
  context.nvme_poll_queues = read_small_int(root, "/sys/module/nvme/parameters/poll_queues");
  auto used = root.read_value(sysctl_path("fs.aio-nr"));
  auto limit_nr = root.read_value(sysctl_path("fs.aio-max-nr"));
  if (used && limit_nr) context.aio_usage = "fs.aio-nr " + *used + " of fs.aio-max-nr " + *limit_nr;
  if (auto release = root.read_value("/proc/sys/kernel/osrelease"))
    context.kernel_release = *release;
  if (device) {
    context.disk = device->disk;
    const std::string disk = "/sys/block/" + device->disk;
    context.io_poll = read_small_int(root, disk + "/queue/io_poll");
    context.bio_based = !root.exists(disk + "/mq");
    if (auto slaves = root.list(disk + "/slaves")) context.stacked = !slaves->empty();
  }
  return context;
}

std::string explain_failure(int code, const EngineMode& mode, const FailureContext& context) {
  const bool uring = mode.kind == EngineKind::kIoUring;
  const std::string name = errno_name(code) + " (" + std::strerror(code) + "): ";
  if (uring && (code == EPERM || code == EACCES)) {
    if (context.io_uring_disabled == 2) {
      return name + "kernel.io_uring_disabled = 2: io_uring is switched off for every process";
    }
    if (context.io_uring_disabled == 1) {
      return name +
             "kernel.io_uring_disabled = 1: only CAP_SYS_ADMIN and members of "
             "kernel.io_uring_group (" +
             context.io_uring_group.value_or("?") + ") may create rings";
    }
    if (context.seccomp_mode.value_or(0) != 0) {
      return name +
             "a seccomp filter on this process (container runtime or systemd "
             "SystemCallFilter) refuses io_uring_setup";
    }
    return name + "an LSM policy (SELinux, AppArmor) refuses io_uring";
  }
  if (uring && code == ENOSYS) {
    return name + (context.seccomp_mode.value_or(0) != 0
                       ? "a seccomp filter hides io_uring_setup"
                       : "the kernel is built without CONFIG_IO_URING");
  }
  if (code == EOPNOTSUPP && mode.polled()) return name + not_pollable(mode, context);
  if (code == ENOMEM) {
    std::string cause = name + "locked memory for the ring or registered buffers exceeds ";
    cause += context.memlock_limit
                 ? "RLIMIT_MEMLOCK (" + std::to_string(*context.memlock_limit) + " bytes)"
                 : "what the kernel will pin";
    return cause + ": raise ulimit -l or LimitMEMLOCK=";
  }
  if (code == EINVAL && uring) {
    return name + "kernel " + context.kernel_release +
           " rejects a ring flag or opcode this mode needs (too old for it)";
  }
  if (code == EAGAIN && mode.kind == EngineKind::kLibaio) {
    return name + "no AIO contexts left: " + context.aio_usage.value_or("fs.aio-nr unknown");
  }
  if (code == EINVAL) return name + "the device rejects the block size or alignment for O_DIRECT";
  return name + "the I/O itself failed; see the kernel log";
}

std::optional<std::string> polling_doubt(const EngineMode& mode, const FailureContext& context) {
  if (!mode.polled()) return std::nullopt;
  if (context.io_poll.value_or(0) == 1 && !context.bio_based && !context.stacked) {
    return std::nullopt;
  }
  return "completed, but " + not_pollable(mode, context) +
         ": this kernel fell back to interrupt completions without saying so";
}

}  // namespace kdrift
