#include "kernel_facts/kernel_facts.h"

#include "kernel_facts/nvme_queues.h"
#include "kernel_facts/pci_link.h"
#include "snapshot/json_access.h"

namespace kdrift {
namespace {

// "none" for a disk on a PCI function rests on the groups having been listed without its
// function (collect/iommu.cpp); where iommu.unavailable names the groups, it rests on nothing.
void unknown_iommu_modes_without_groups(Json& snapshot) {
  const auto iommu = snapshot.find("iommu");
  if (iommu == snapshot.end() || !iommu->is_object()) return;
  const Json* unavailable = object_member(*iommu, "unavailable");
  const auto why = unavailable != nullptr ? string_at(*unavailable, {"groups"}) : std::nullopt;
  const auto devices = iommu->find("devices");
  if (!why || devices == iommu->end() || !devices->is_array()) return;
  for (auto& device : *devices) {
    if (!device.is_object() || !device.contains("pci") || text_member(device, "mode") != "none") {
      continue;
    }
    device.erase("mode");
    if (const auto derived = device.find("derived"); derived != device.end()) {
      if (derived->is_object()) derived->erase("mode");
      if (!derived->is_object() || derived->empty()) device.erase(derived);
    }
    device["unavailable"]["mode"] = "no IOMMU groups were captured (" + *why + ")";
  }
}

}  // namespace

void judge_kernel_facts(Json& snapshot) {
  if (const auto pci = snapshot.find("pci"); pci != snapshot.end()) judge_pci_links(*pci);
  derive_missing_nvme_queues(snapshot);
  unknown_iommu_modes_without_groups(snapshot);
}

}  // namespace kdrift
