#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "kernel": release, version, boot_id, tainted, lockdown, cmdline (raw and parsed), config.
Json collect_kernel(const SysRoot& root);

}  // namespace kdrift
