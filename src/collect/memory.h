#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "memory": transparent hugepages and memory totals.
Json collect_memory(const SysRoot& root);

}  // namespace kdrift
