#pragma once
// What kdrift fleet knows of one host: the facts of its snapshot that move async I/O, each a
// name and a value in words, and its peer key (hardware and kernel). Two hosts with the same
// facts boot alike for I/O; a host whose fact differs from its peers' is a candidate outlier.
//
// Fact names (docs/fleet.md): kernel.release, kernel.config.SYMBOL, kernel.cmdline.PARAM,
// iommu.mode[CLASS] (per storage device class: nvme, virtio, scsi, ...), nvme.queues.TYPE[MODEL],
// nvme.param.NAME, block.scheduler[MODEL], block.queue.SETTING[MODEL], pci.link[MODEL],
// pci.max_read_request_bytes[MODEL], cpu.governor, cpu.freq_driver, cpu.idle.driver,
// cpu.smt.active, cpu.vulnerabilities.NAME, numa.nodes, numa.node[MODEL], sysctl.NAME,
// probe.capability.NAME. A device's MODEL is its controller's model, else its device class.
// Which of them a host is folded by is the rules' to say (FactSelection), not this file's.

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rules/rule.h"
#include "snapshot/snapshot.h"
#include "util/bounded_json.h"
#include "util/result.h"

namespace kdrift {

// A fact's value and the peers' majority are compared as text; longer values are cut (with a
// mark) so a hostile snapshot cannot make one fact cost more than this.
inline constexpr std::size_t kMaxFactValueBytes = 256;
// The value of a fact the snapshot names as unknown: no peer majority counts it, and a host
// with it deviates from none.
inline constexpr std::string_view kUnknownFact = "unknown";
// The most facts kept of one host: a real capture gives 60-150.
inline constexpr std::size_t kMaxFactsPerHost = 2000;

struct HostFacts {
  std::string hostname;  // the snapshot's environment.hostname ("" when absent)
  std::string kernel;    // kernel.release
  std::string hardware;  // CPU model and storage models: the hardware half of the peer key
  std::vector<std::pair<std::string, std::string>> facts;  // sorted by name, names unique
  // Each probe job's main-direction IOPS, by job name (empty without a probe section).
  std::map<std::string, double> probe_iops;
};

// The facts the loaded rules name in their `fingerprint` (checks/README.md): a name (a keyed
// fact, NAME[MODEL], by its NAME) or a prefix ending in "*". A rule that knows what moves its
// finding adds those facts to what hosts are folded by, a --checks rule too.
class FactSelection {
 public:
  explicit FactSelection(const std::vector<Rule>& rules);

  // name: a fact's name without its [MODEL] or [CLASS].
  bool takes(std::string_view name) const;
  // The names and prefixes that start with prefix, without it: what takes() would say of
  // prefix + name, asked of the name alone.
  FactSelection under(std::string_view prefix) const;

 private:
  FactSelection() = default;
  void drop_covered_prefixes();

  std::set<std::string, std::less<>> names_;
  std::set<std::string, std::less<>> prefixes_;  // none starts with another
};

// The selected facts of a snapshot document (any subset of a full one: what is absent is not a
// fact).
HostFacts host_facts(const Json& snapshot, const FactSelection& selection);

// Which members of a snapshot host_facts and the group comparison read: a fleet read builds
// only these (the kernel's full config, the probe's traces and the IRQ table are most of a
// snapshot). The filter keeps what it needs of selection.
JsonMemberFilter fleet_member_filter(const FactSelection& selection);

// read_snapshot_file through fleet_member_filter.
Result<Json> read_fleet_snapshot(const std::string& path, const FactSelection& selection);

}  // namespace kdrift
