#include "iobench/cpu_affinity.h"

#include <algorithm>
#include <cerrno>
#include <utility>

#include "util/text.h"

namespace kdrift {
namespace {

Result<std::vector<int>> node_cpus(const SysRoot& root, int node) {
  const std::string path = "/sys/devices/system/node/node" + std::to_string(node) + "/cpulist";
  auto text = root.read_value(path);
  if (!text) return text.error();
  auto cpus = parse_cpu_list(*text);
  if (!cpus || cpus->empty()) return content_error(path + ": no cpus in " + quote_value(*text));
  return *cpus;
}

// The first node with cpus that is not `node`.
Result<int> other_node(const SysRoot& root, int node) {
  auto nodes = root.read_value("/sys/devices/system/node/has_cpu");
  auto list = nodes ? parse_cpu_list(*nodes) : std::nullopt;
  if (list) {
    const auto other =
        std::find_if(list->begin(), list->end(), [&](int candidate) { return candidate != node; });
    if (other != list->end()) return *other;
  }
  return make_error(ENODEV, "--numa remote: this host has no other node with cpus");
}

// The node --numa names (-1 for --cpus), with description["source"] set.
Result<int> placement_node(const Placement& placement, std::optional<int> device_node,
                           const std::string& target_path, const SysRoot& root, Json& description) {
  switch (placement.kind) {
    case Placement::Kind::kNone:
    case Placement::Kind::kCpus:
      description["source"] = "--cpus";
      return -1;
    case Placement::Kind::kNumaNode:
      description["source"] = "--numa " + std::to_string(placement.node);
      return placement.node;
    case Placement::Kind::kNumaLocal:
    case Placement::Kind::kNumaRemote:
      break;
  }
  if (!device_node) {
    return make_error(
        ENODEV, "--numa local/remote: the device under " + target_path + " reports no NUMA node");
  }
  if (placement.kind == Placement::Kind::kNumaLocal) {
    description["source"] = "--numa local";
    return *device_node;
  }
  auto other = other_node(root, *device_node);
  if (other) description["source"] = "--numa remote";
  return other;
}

}  // namespace

Result<Placement> parse_cpus(const std::string& text) {
  auto cpus = parse_cpu_list(text);
  if (!cpus || cpus->empty())
    return make_error(EINVAL, "--cpus: not a cpu list: " + quote_value(text));
  Placement placement;
  placement.kind = Placement::Kind::kCpus;
  placement.cpus = *cpus;
  return placement;
}

Result<Placement> parse_numa(const std::string& text) {
  Placement placement;
  if (text == "local") {
    placement.kind = Placement::Kind::kNumaLocal;
  } else if (text == "remote") {
    placement.kind = Placement::Kind::kNumaRemote;
  } else if (auto node = parse_int(text); node && *node >= 0 && *node < 4096) {
    placement.kind = Placement::Kind::kNumaNode;
    placement.node = static_cast<int>(*node);
  } else {
    return make_error(EINVAL,
                      "--numa: expected local, remote or a node number, not " + quote_value(text));
  }
  return placement;
}

Result<ResolvedPlacement> resolve_placement(const Placement& placement,
                                            std::optional<int> device_node,
                                            const std::string& target_path, const SysRoot& root) {
  ResolvedPlacement out;
  Json& description = out.description;
  description["device_numa_node"] = device_node ? Json(*device_node) : Json(nullptr);
  if (placement.kind == Placement::Kind::kNone) {
    description["pinned"] = false;
    return out;
  }
  auto node = placement_node(placement, device_node, target_path, root, description);
  if (!node) return node.error();
  out.cpus = placement.cpus;
  if (*node >= 0) {
    auto cpus = node_cpus(root, *node);
    if (!cpus) return cpus.error();
    out.cpus = *cpus;
    description["node"] = *node;
  }
  description["pinned"] = true;
  description["cpus"] = out.cpus;
  return out;
}

Result<AffinityGuard> AffinityGuard::pin(const std::vector<int>& cpus) {
  AffinityGuard guard;
  if (cpus.empty()) return guard;
  if (::sched_getaffinity(0, sizeof guard.saved_, &guard.saved_) != 0) {
    return make_error(errno, "sched_getaffinity");
  }
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (const int cpu : cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return make_error(EINVAL, "cpu " + std::to_string(cpu));
    CPU_SET(cpu, &wanted);
  }
  if (::sched_setaffinity(0, sizeof wanted, &wanted) != 0) {
    return make_error(errno, "sched_setaffinity to the requested cpus");
  }
  guard.restore_ = true;
  return guard;
}

AffinityGuard::AffinityGuard() {
  CPU_ZERO(&saved_);
}

AffinityGuard::AffinityGuard(AffinityGuard&& other) noexcept
    : saved_(other.saved_), restore_(std::exchange(other.restore_, false)) {}

AffinityGuard::~AffinityGuard() {
  if (restore_) ::sched_setaffinity(0, sizeof saved_, &saved_);
}

}  // namespace kdrift
