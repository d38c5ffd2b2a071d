#pragma once
// Hypervisors that show in files rather than in x86's cpuid flag or DMI: on POWER, PowerVM (pHyp)
// and KVM through the device tree, and on s390 PR/SM (LPAR), z/VM and KVM through /proc/sysinfo.
// The evidence and its order are those of util-linux's lscpu (sys-utils/lscpu-virt.c).

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// {vendor ("pHyp", "KVM", "IBM", "OS/400"), type ("para", "full", "none"), hypervisor (s390's
// name for it: "PR/SM", "z/VM 6.1.0", "KVM/Linux"), evidence}; a vendor the files do not name is
// unavailable with the reason, and so is the vendor when no such file exists at all.
Json platform_hypervisor(const SysRoot& root);

}  // namespace kdrift
