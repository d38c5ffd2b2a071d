#include "trace/kernel_features.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

namespace kdrift {
namespace {

class VmlinuxFeatures final : public TraceFeatures {
 public:
  VmlinuxFeatures() {
    btf_ = btf__load_vmlinux_btf();
    if (btf_ == nullptr) {
      reason_ = std::string("no kernel BTF (/sys/kernel/btf/vmlinux: ") + std::strerror(errno) +
                "); CONFIG_DEBUG_INFO_BTF is needed";
    }
  }
  VmlinuxFeatures(const VmlinuxFeatures&) = delete;
  VmlinuxFeatures& operator=(const VmlinuxFeatures&) = delete;
  ~VmlinuxFeatures() override { btf__free(btf_); }

  std::optional<std::string> unavailable() const override { return reason_; }

  std::optional<int> tracepoint_arguments(const std::string& tracepoint) const override {
    const std::lock_guard lock(mutex_);
    if (auto cached = arguments_.find(tracepoint); cached != arguments_.end()) {
      return cached->second;
    }
    return arguments_[tracepoint] = look_up(tracepoint);
  }

 private:
  std::optional<int> look_up(const std::string& tracepoint) const {
    if (btf_ == nullptr) return std::nullopt;
    const int id =
        btf__find_by_name_kind(btf_, ("btf_trace_" + tracepoint).c_str(), BTF_KIND_TYPEDEF);
    if (id < 0) return std::nullopt;
    const btf_type* type = btf__type_by_id(btf_, btf__resolve_type(btf_, id));
    if (type == nullptr || !btf_is_ptr(type)) return std::nullopt;
    const btf_type* prototype = btf__type_by_id(btf_, type->type);
    if (prototype == nullptr || !btf_is_func_proto(prototype)) return std::nullopt;
    return static_cast<int>(btf_vlen(prototype)) - 1;  // the first is the tracepoint's data
  }

  btf* btf_ = nullptr;
  std::optional<std::string> reason_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::optional<int>> arguments_;
};

}  // namespace

const TraceFeatures& running_kernel_features() {
  static const VmlinuxFeatures features;
  return features;
}

}  // namespace kdrift
