#pragma once
// The human summary `kdrift audit` prints: the I/O-relevant state of one snapshot, grouped the way
// a storage engineer checks a host (kernel and command line, IOMMU per device, NVMe queues, block
// queues, PCIe links, CPU, NUMA, sysctls), then what could not be read.

#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

std::string render_summary(const Json& snapshot, bool colour);

}  // namespace kdrift
