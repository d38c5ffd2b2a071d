#pragma once
// Facts a rule needs that the snapshot holds only as cross-references: which block devices sit
// on a PCI function, on which NUMA node, whether the CPUs doing I/O are on another node, whether
// the probe polled. Computed when rules are evaluated, never stored, so a hand-edited snapshot
// gets consistent facts.
//
// derived.disks.NAME{physical, stacked, probe_target, and on a PCI function: pci, numa_node?,
//   remote_numa (no workload CPU on the device's node), local_cpus_only}
// derived.probe{polled, iodepths[], target_nvme, polling_expected (polled or NVMe)}
// derived.iommu{predicted, basis, per_device, kconfig_default, overridden_by?{PARAMS:
//   {kconfig_default}}}: the mode Kconfig and command line give (kernel_facts/iommu_mode.h), and
//   the parameters that decide it whatever the build's defaults say
// derived.workload_cpus{cpus[], source ("probe placement" or "capturing process")}
// An untrusted snapshot's PCIe link verdicts and NVMe queue splits are judged from its facts
// first (kernel_facts/kernel_facts.h).

#include "kernel_facts/kernel_facts.h"
#include "snapshot/snapshot.h"

namespace kdrift {

// The snapshot with a "derived" member added (any existing one is replaced).
Json with_derived_facts(const Json& snapshot, Judgements judgements);

}  // namespace kdrift
