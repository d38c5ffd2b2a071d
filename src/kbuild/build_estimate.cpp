#include "kbuild/build_estimate.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cmath>
#include <filesystem>

#include "kbuild/base_config.h"
#include "util/units.h"

namespace kdrift {

Result<std::uint64_t> free_disk_bytes(const std::string& path, std::string* measured_at) {
  if (path.empty()) return content_error("no directory given to measure free space in");
  std::error_code ignored;
  std::filesystem::path directory = std::filesystem::absolute(path, ignored);
  while (!std::filesystem::exists(directory, ignored) && directory.has_relative_path())
    directory = directory.parent_path();
  struct statvfs status {};
  if (::statvfs(directory.c_str(), &status) != 0) return make_error(errno, directory.string());
  if (measured_at != nullptr) *measured_at = directory.string();
  return static_cast<std::uint64_t>(status.f_bavail) * status.f_frsize;
}

Result<BuildEstimate> estimate_builds(int candidates, const std::string& base_config, int cores,
                                      const std::string& output_dir) {
  if (candidates < 1) return content_error("no candidate to build");
  if (cores < 1) return content_error("no core to build on");
  auto config = read_base_config(base_config);
  if (!config) return config.error();
  BuildEstimate estimate;
  estimate.candidates = candidates;
  estimate.builds_expected = static_cast<int>(std::ceil(std::log2(candidates + 1.0))) + 1;
  estimate.config_symbols = config->builtin + config->modules;
  const double scale = static_cast<double>(estimate.config_symbols) / kCalibrationSymbols *
                       kCalibrationCores / cores;
  estimate.first_build = std::chrono::seconds(
      static_cast<std::int64_t>(std::ceil(static_cast<double>(kCalibrationBuild.count()) * scale)));
  const std::uint64_t per_symbol = config->debug_info ? kBytesPerSymbolDebug : kBytesPerSymbol;
  estimate.disk_needed_bytes = kKbuildFixedBytes +
                               per_symbol * static_cast<std::uint64_t>(estimate.config_symbols) +
                               kKeptPerBuild * static_cast<std::uint64_t>(estimate.builds_expected);
  auto free_bytes = free_disk_bytes(output_dir, &estimate.disk_directory);
  if (!free_bytes) return free_bytes.error();
  estimate.disk_free_bytes = *free_bytes;
  return estimate;
}

Status check_disk(const BuildEstimate& estimate) {
  if (estimate.disk_free_bytes >= estimate.disk_needed_bytes) return ok_status();
  return make_error(ENOSPC, estimate.disk_directory + " has " +
                                approximate_bytes(estimate.disk_free_bytes) + " free; " +
                                std::to_string(estimate.builds_expected) + " builds of a " +
                                std::to_string(estimate.config_symbols) + "-symbol config need " +
                                approximate_bytes(estimate.disk_needed_bytes));
}

}  // namespace kdrift
