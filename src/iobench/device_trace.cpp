#include "iobench/device_trace.h"

#include <sys/stat.h>

#include <cerrno>
#include <thread>

#include "iobench/block_device.h"
#include "iobench/diskstats.h"
#include "iobench/recorder.h"
#include "trace/trace_session.h"
#include "util/units.h"

namespace kdrift {

Result<Json> trace_device(const DeviceTraceOptions& options, const SysRoot& root) {
  struct stat status {};
  if (::stat(options.target.c_str(), &status) != 0) return make_error(errno, options.target);
  const dev_t number = S_ISBLK(status.st_mode) ? status.st_rdev : status.st_dev;
  auto device = find_block_device(root, number);
  if (!device) return device.error();
  auto disk = traced_disk(root, *device);
  if (!disk) return disk.error();
  auto trace = TraceSession::open({*disk}, 0, running_kernel_features());
  if (!trace) return trace.error();
  if (auto attached = (*trace)->attach(); !attached) return attached.error();

  auto before = read_disk_stats(root, *device);
  const uint64_t started = monotonic_ns();
  const uint64_t until = started + static_cast<uint64_t>(options.duration.count()) * 1000000;
  while (monotonic_ns() < until && !(options.stop_requested && options.stop_requested())) {
    const uint64_t left_ms = (until - monotonic_ns()) / 1000000;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<uint64_t>(left_ms + 1, 100)));
  }
  auto after = read_disk_stats(root, *device);
  const uint64_t ended = monotonic_ns();
  Json traced = (*trace)->detach(after ? all_completed_before(*after) : std::nullopt);

  Json out = {{"name", device->name + " for " +
                           format_duration(std::chrono::microseconds((ended - started) / 1000))},
              {"target", options.target},
              {"device", device->name},
              {"duration_s", static_cast<double>(ended - started) / 1e9}};
  if (before && after) {
    out["diskstats"] = disk_stats_delta(*before, *after, device->name, std::nullopt);
    traced["diskstats"] = trace_diskstats(out["diskstats"]);
  } else {
    out["unavailable"]["diskstats"] = (before ? after : before).error().describe();
  }
  out["trace"] = std::move(traced);
  return out;
}

}  // namespace kdrift
