#include "trace/kernel_features.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "util/sysroot.h"

namespace kdrift {
namespace {

constexpr const char* kBtfDirectory = "/sys/kernel/btf";

// The kernel's BTF, and each module's (split on top of it) loaded when a tracepoint is not in
// the kernel's own: nvme's tracepoints live in nvme_core when it is a module.
class RunningKernelFeatures final : public TraceFeatures {
 public:
  explicit RunningKernelFeatures(const SysRoot& root) : root_(root) {
    auto path = root_.host_path(std::string(kBtfDirectory) + "/vmlinux");
    if (path) vmlinux_ = btf__parse(path->c_str(), nullptr);
    if (vmlinux_ == nullptr) {
      const int code = path ? errno : path.error().code;
      reason_ = std::string("no kernel BTF (") + kBtfDirectory +
                "/vmlinux: " + std::strerror(code) + "); CONFIG_DEBUG_INFO_BTF is needed";
    }
  }
  RunningKernelFeatures(const RunningKernelFeatures&) = delete;
  RunningKernelFeatures& operator=(const RunningKernelFeatures&) = delete;
  ~RunningKernelFeatures() override {
    for (auto* module : modules_)
      btf__free(module);
    btf__free(vmlinux_);
  }

  std::optional<std::string> unavailable() const override { return reason_; }

  std::optional<int> tracepoint_arguments(const std::string& tracepoint) const override {
    const std::lock_guard lock(mutex_);
    if (auto cached = arguments_.find(tracepoint); cached != arguments_.end()) {
      return cached->second;
    }
    auto found = arguments_in(vmlinux_, tracepoint);
    if (!found && vmlinux_ != nullptr) {
      load_modules();
      for (const auto* module : modules_) {
        if ((found = arguments_in(module, tracepoint))) break;
      }
    }
    return arguments_[tracepoint] = found;
  }

 private:
  static std::optional<int> arguments_in(const btf* types, const std::string& tracepoint) {
    if (types == nullptr) return std::nullopt;
    const int id =
        btf__find_by_name_kind(types, ("btf_trace_" + tracepoint).c_str(), BTF_KIND_TYPEDEF);
    if (id < 0) return std::nullopt;
    const btf_type* type = btf__type_by_id(types, btf__resolve_type(types, id));
    if (type == nullptr || !btf_is_ptr(type)) return std::nullopt;
    const btf_type* prototype = btf__type_by_id(types, type->type);
    if (prototype == nullptr || !btf_is_func_proto(prototype)) return std::nullopt;
    return static_cast<int>(btf_vlen(prototype)) - 1;  // the first is the tracepoint's data
  }

  void load_modules() const {
    if (modules_loaded_) return;
    modules_loaded_ = true;
    auto names = root_.list(kBtfDirectory);
    if (!names) return;
    for (const auto& name : *names) {
      if (name == "vmlinux") continue;
      auto path = root_.host_path(std::string(kBtfDirectory) + "/" + name);
      if (!path) continue;
      if (btf* module = btf__parse_split(path->c_str(), vmlinux_)) modules_.push_back(module);
    }
  }

  const SysRoot& root_;
  btf* vmlinux_ = nullptr;
  std::optional<std::string> reason_;
  mutable std::mutex mutex_;
  mutable bool modules_loaded_ = false;
  mutable std::vector<btf*> modules_;
  mutable std::map<std::string, std::optional<int>> arguments_;
};

}  // namespace

const TraceFeatures& running_kernel_features() {
  static const SysRoot live;
  static const RunningKernelFeatures features(live);
  return features;
}

}  // namespace kdrift
