#pragma once
// Which program of a skeleton serves each tracepoint on the running kernel: every tracepoint
// has one program per argument layout kdrift knows, and the kernel's BTF prototype picks one.
// A tracepoint the kernel lacks, or whose layout is unknown, leaves its programs unloaded and
// says why; the others still load.

#include <optional>
#include <string>
#include <vector>

#include "trace/kernel_features.h"

namespace kdrift {

struct ProgramVariant {
  std::string program;  // the skeleton's program name
  int arguments = 0;    // the tracepoint arguments it is written for; kAnyArguments: reads none
  static constexpr int kAnyArguments = -1;
};

struct TracepointPrograms {
  std::string tracepoint;  // "block_rq_issue"
  std::vector<ProgramVariant> variants;
};

struct ProgramChoice {
  std::string tracepoint;
  std::optional<std::string> program;  // nullopt: unavailable
  std::string reason;                  // why unavailable
};

std::vector<ProgramChoice> choose_programs(const std::vector<TracepointPrograms>& wanted,
                                           const TraceFeatures& features);

}  // namespace kdrift
