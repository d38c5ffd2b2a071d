#pragma once
// The PCIe link verdict of the snapshot schema (pci.devices.*.link_degraded and link_partner),
// judged from the link facts a capture records: the sysfs link attributes, the capability
// registers' view of them (link.config), each function's pcie_type and the storage functions'
// upstream paths. The PCI collector records those facts only; capture adds the verdict, so the
// schema keeps the fields its readers rely on, and a snapshot read from a file is judged again
// from its facts (kernel_facts.h), so a hand-edited one gets a consistent verdict.

#include "snapshot/snapshot.h"

namespace kdrift {

// Replaces every device's link_degraded, link_partner and unavailable.link_degraded in a pci
// section ({devices: {address: {...}}}) with the verdict its facts give. Both ends of a link train
// to the fastest speed and widest width they both support, so a link is degraded when it runs
// below the lesser of the two maxima: a x4 port above a x1 device is not. Each link is judged
// from its downstream end, and the verdict is given to both ends.
void judge_pci_links(Json& pci);

}  // namespace kdrift
