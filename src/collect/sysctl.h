#pragma once

#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "sysctl": the sysctls that govern async I/O (io_uring, aio, dirty page writeback).
Json collect_sysctl(const SysRoot& root);

// "vm.dirty_ratio" -> "/proc/sys/vm/dirty_ratio".
std::string sysctl_path(std::string_view name);

}  // namespace kdrift
