#pragma once
// What a bisect of builds will cost, said before it starts: how many builds, how long the first
// (cold) one takes, and the disk it needs against what the output directory's filesystem has.
//
// The model, stated so that its figures can be checked:
// - builds: ceil(log2(candidates + 1)) steps of a binary search, plus the build of the bad
//   endpoint (the first build, which also checks that the range builds at all).
// - first build: linear in the config's symbols (=y and =m) and inversely in the cores,
//   calibrated on the lab's guest config (~600 symbols, `make -j2 bzImage` 207 s cold on this
//   machine kind, LAB-NOTES): 207 s x symbols / 600 x 2 / cores. Later builds are incremental
//   and through ccache, much shorter; they are not estimated.
// - disk: the O= directory, kKbuildFixedBytes (scripts, generated headers, the linked vmlinux
//   and its kallsyms passes) plus kBytesPerSymbol a symbol, calibrated on the lab's O= directory
//   (`du -s`: 129 MB for a 630-symbol guest config without debug info; the model says 222 MiB,
//   leaving room for what a link holds at its peak); kBytesPerSymbolDebug a symbol when
//   CONFIG_DEBUG_INFO=y, DWARF making each object several times its size (not measured here);
//   plus what is kept of each build (config, log, image: kKeptPerBuild). The source tree and
//   kdrift's work tree of it are not counted: the tree is already there.

#include <chrono>
#include <cstdint>
#include <string>

#include "util/result.h"

namespace kdrift {

inline constexpr std::chrono::seconds kCalibrationBuild{207};
inline constexpr int kCalibrationSymbols = 600;
inline constexpr int kCalibrationCores = 2;
inline constexpr std::uint64_t kKbuildFixedBytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kBytesPerSymbol = std::uint64_t{256} << 10;
inline constexpr std::uint64_t kBytesPerSymbolDebug = std::uint64_t{3} << 20;
inline constexpr std::uint64_t kKeptPerBuild = std::uint64_t{20} << 20;

struct BuildEstimate {
  int candidates = 0;
  int builds_expected = 0;  // ceil(log2(candidates + 1)) + 1 for the endpoint build
  int config_symbols = 0;   // =y and =m in the base config
  std::chrono::seconds first_build{0};
  std::uint64_t disk_needed_bytes = 0;
  std::uint64_t disk_free_bytes = 0;
  std::string disk_directory;  // where the free space was measured
};

// candidates >= 1 and cores >= 1; base_config is read as a build reads it (refusals included);
// the free space is that of output_dir's filesystem, or of its nearest existing parent's.
Result<BuildEstimate> estimate_builds(int candidates, const std::string& base_config, int cores,
                                      const std::string& output_dir);

// A refusal (ENOSPC) naming the directory, the free and the needed space, when the estimate
// does not fit.
Status check_disk(const BuildEstimate& estimate);

// The space available to an unprivileged writer on path's filesystem, path being the nearest
// existing directory at or above it; that directory is written to measured_at.
Result<std::uint64_t> free_disk_bytes(const std::string& path, std::string* measured_at = nullptr);

}  // namespace kdrift
