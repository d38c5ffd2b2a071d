#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "cpu": model, microcode, SMT, cpufreq policies, cpuidle states, vulnerabilities, isolation.
Json collect_cpu(const SysRoot& root);

}  // namespace kdrift
