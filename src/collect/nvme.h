#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "nvme": nvme / nvme_core module parameters, controllers and namespaces.
Json collect_nvme(const SysRoot& root);

}  // namespace kdrift
