#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "sysctl": the sysctls that govern async I/O (io_uring, aio, dirty page writeback).
Json collect_sysctl(const SysRoot& root);

}  // namespace kdrift
