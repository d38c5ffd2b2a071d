#pragma once
// What the IOMMU mode prediction (iommu_mode.h) is given, read from a snapshot: the command
// line's IOMMU parameters (iommu.cmdline, else the kernel's effective command line), the Kconfig
// symbols the kernel's choice reads, which vendor's driver the host runs (its units, else a
// vendor's own parameter, else the CPU's vendor), whether that vendor's units cache not-present
// entries as their capability registers say, whether /sys/class/iommu lists a unit, and whether
// the host is a virtual machine.

#include "kernel_facts/iommu_mode.h"
#include "snapshot/snapshot.h"

namespace kdrift {

IommuInputs iommu_inputs(const Json& snapshot);

}  // namespace kdrift
