#pragma once

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// "pci": storage controllers and their upstream bridges through libpci, with link speed/width, NUMA
// node, MPS/MRRS and AER counters: facts only; the link verdict is kernel_facts/pci_link.h's.
Json collect_pci(const SysRoot& root);

// The PCI ID database libpci reads device names from, as this build of libpci names it.
std::string pci_ids_file();

}  // namespace kdrift
