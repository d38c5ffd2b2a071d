#include "kernel_facts/kernel_facts.h"

#include "kernel_facts/nvme_queues.h"
#include "kernel_facts/pci_link.h"

namespace kdrift {

void judge_kernel_facts(Json& snapshot) {
  if (const auto pci = snapshot.find("pci"); pci != snapshot.end()) judge_pci_links(*pci);
  derive_missing_nvme_queues(snapshot);
}

}  // namespace kdrift
