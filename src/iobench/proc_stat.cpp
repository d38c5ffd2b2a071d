#include "iobench/proc_stat.h"

#include <unistd.h>

#include <algorithm>

#include "collect/irq.h"
#include "util/text.h"

namespace kdrift {

std::optional<uint64_t> stat_cpu_ticks(std::string_view stat) {
  const auto close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  const auto fields = split_whitespace(stat.substr(close + 1));
  // After "pid (comm)": state is field 3, utime 14, stime 15.
  if (fields.size() < 13) return std::nullopt;
  const auto user = parse_uint(fields[11]);
  const auto system = parse_uint(fields[12]);
  if (!user || !system) return std::nullopt;
  return *user + *system;
}

std::optional<std::string> sqpoll_thread_dir(const SysRoot& root) {
  auto tasks = root.list("/proc/self/task");
  if (!tasks) return std::nullopt;
  for (const auto& task : *tasks) {
    const std::string dir = "/proc/self/task/" + task;
    auto comm = root.read_value(dir + "/comm");
    if (comm && starts_with(*comm, "iou-sqp-")) return dir;
  }
  return std::nullopt;
}

std::optional<double> sqpoll_thread_seconds(const SysRoot& root) {
  const auto dir = sqpoll_thread_dir(root);
  if (!dir) return std::nullopt;
  auto stat = root.read(*dir + "/stat");
  if (!stat) return std::nullopt;
  const auto ticks = stat_cpu_ticks(*stat);
  if (!ticks) return std::nullopt;
  return static_cast<double>(*ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

void wait_for_sqpoll_exit(const SysRoot& root) {
  for (int attempt = 0; attempt < 300 && sqpoll_thread_dir(root); ++attempt)
    ::usleep(10000);
}

std::optional<DeviceInterrupts> device_interrupts(const SysRoot& root, const std::string& disk) {
  const Json irq = collect_irq(root);
  const auto storage = irq.find("storage");
  if (storage == irq.end() || !storage->is_array()) return std::nullopt;
  DeviceInterrupts out{0, Json::array()};
  for (const auto& row : *storage) {
    const auto devices = row.value("block_devices", Json::array());
    if (std::find(devices.begin(), devices.end(), disk) == devices.end()) continue;
    out.count += row.value("total", uint64_t{0});
    out.lines.push_back(row.value("name", std::string()));
  }
  if (out.lines.empty()) return std::nullopt;
  return out;
}

}  // namespace kdrift
