#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "environment": host name, virtualisation, seccomp, cgroup, irqbalance/tuned, library versions.
Json collect_environment(const SysRoot& root);

}  // namespace kdrift
