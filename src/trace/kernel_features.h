#pragma once
// What the running kernel offers the trace programs, probed once per process and never guessed
// from the version number: whether it has BTF (tp_btf programs and CO-RE need it), and the
// argument list each tracepoint's BTF prototype gives (tracepoints lost their request_queue
// argument in 5.11). An interface, so variant selection is tested against made-up kernels.

#include <memory>
#include <optional>
#include <string>

namespace kdrift {

class TraceFeatures {
 public:
  virtual ~TraceFeatures() = default;
  // Why no program can load at all (no kernel BTF), or nullopt.
  virtual std::optional<std::string> unavailable() const = 0;
  // Arguments of the raw tracepoint (its btf_trace_<name> prototype, without the leading
  // context pointer); nullopt when the kernel has no such tracepoint.
  virtual std::optional<int> tracepoint_arguments(const std::string& tracepoint) const = 0;
};

// The live kernel, from /sys/kernel/btf (vmlinux, then modules); loaded on first use, then
// cached.
const TraceFeatures& running_kernel_features();

}  // namespace kdrift
