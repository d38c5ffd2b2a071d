#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "irq": interrupt lines of storage queues with their counts and effective affinity.
Json collect_irq(const SysRoot& root);

}  // namespace kdrift
