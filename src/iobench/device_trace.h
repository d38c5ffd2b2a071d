#pragma once
// `kdrift trace`: the block-layer trace of whatever runs on a device for a while (a database, a
// fio job): the same programs and the same section as a probe job's, around a wait instead of
// a workload.

#include <chrono>
#include <functional>
#include <string>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct DeviceTraceOptions {
  std::string target;  // a block device, or a file or directory on one
  std::chrono::milliseconds duration{10000};
  // Polled a few times a second; true ends the trace early (Ctrl-C).
  std::function<bool()> stop_requested;
};

// {name, target, device, duration_s, diskstats, trace{block, programs, diskstats}}; an error
// when the target has no block device or no program can load.
Result<Json> trace_device(const DeviceTraceOptions& options, const SysRoot& root);

}  // namespace kdrift
