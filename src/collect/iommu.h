#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "iommu": IOMMU units, groups and their domain types, the mode in effect per block device, related
// cmdline keys, Kconfig symbols and dmesg lines.
Json collect_iommu(const SysRoot& root);

}  // namespace kdrift
