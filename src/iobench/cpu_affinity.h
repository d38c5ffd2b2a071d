#pragma once
// Where the probe runs: --cpus or --numa, resolved against the device's NUMA node and the
// host's node cpu lists, and the pin held on the calling thread for the whole run.

#include <sched.h>

#include <optional>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct Placement {
  enum class Kind { kNone, kCpus, kNumaLocal, kNumaRemote, kNumaNode };
  Kind kind = Kind::kNone;
  std::vector<int> cpus;  // kCpus
  int node = -1;          // kNumaNode
};

// "0-3,8" -> cpus; "local", "remote", or a node number.
Result<Placement> parse_cpus(const std::string& text);
Result<Placement> parse_numa(const std::string& text);

struct ResolvedPlacement {
  std::vector<int> cpus;  // empty: not pinned
  Json description;       // the snapshot's probe.placement
};

// The cpus to pin to. device_node is the NUMA node of the device under target_path (named in
// the error when --numa local/remote needs it and there is none).
Result<ResolvedPlacement> resolve_placement(const Placement& placement,
                                            std::optional<int> device_node,
                                            const std::string& target_path, const SysRoot& root);

// Pins the calling thread for the lifetime of the object, then restores its mask.
class AffinityGuard {
 public:
  // No cpus: nothing is pinned, nothing restored.
  static Result<AffinityGuard> pin(const std::vector<int>& cpus);
  AffinityGuard(AffinityGuard&& other) noexcept;
  AffinityGuard& operator=(AffinityGuard&&) = delete;
  AffinityGuard(const AffinityGuard&) = delete;
  ~AffinityGuard();

 private:
  AffinityGuard();
  cpu_set_t saved_;
  bool restore_ = false;
};

}  // namespace kdrift
