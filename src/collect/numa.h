#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "numa": nodes with cpu lists, distances and memory; kernel.numa_balancing.
Json collect_numa(const SysRoot& root);

}  // namespace kdrift
