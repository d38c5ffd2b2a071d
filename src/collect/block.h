#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "block": every block device with its queue attributes, hierarchy (holders/slaves), mq cpu lists
// and stat counters.
Json collect_block(const SysRoot& root);

}  // namespace kdrift
