#pragma once
// Why an engine or an I/O failed, in the terms a storage engineer acts on: the sysctl, the
// seccomp filter, the missing poll queues, the memlock limit.

#include <optional>
#include <string>

#include "iobench/block_device.h"
#include "model/probe_job.h"
#include "util/sysroot.h"

namespace kdrift {

// What the explanation depends on, read once per probe run.
struct FailureContext {
  std::optional<int> io_uring_disabled;  // kernel.io_uring_disabled
  std::optional<std::string> io_uring_group;
  std::optional<int> seccomp_mode;        // /proc/self/status Seccomp: 0 none, 1 strict, 2 filter
  std::optional<uint64_t> memlock_limit;  // RLIMIT_MEMLOCK soft limit, bytes (nullopt: unlimited)
  std::optional<int> io_poll;             // queue/io_poll of the disk under the target
  std::optional<int> nvme_poll_queues;    // /sys/module/nvme/parameters/poll_queues
  std::optional<std::string> aio_usage;   // "fs.aio-nr 65536 of fs.aio-max-nr 65536"
  std::string disk;                       // "nvme0n1", empty when unknown
  bool bio_based = false;                 // no blk-mq queues: zram, brd, dm, md
  bool stacked = false;                   // has slaves: dm, md
  std::string kernel_release;

  static FailureContext read(const SysRoot& root, const std::optional<BlockDeviceRef>& device);
};

// The likely cause of errno from this engine mode, one sentence.
std::string explain_failure(int code, const EngineMode& mode, const FailureContext& context);

// For a polled mode that completed: why the kernel may not really have polled (nullopt: it did
// poll, as far as sysfs can tell).
std::optional<std::string> polling_doubt(const EngineMode& mode, const FailureContext& context);

}  // namespace kdrift
