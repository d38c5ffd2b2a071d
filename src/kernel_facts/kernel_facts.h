#pragma once
// kernel_facts: what the kernel does given the facts a snapshot records (pci_link.h: whether a
// PCIe link trained below what both ends support; nvme_queues.h: how the PCIe driver splits an
// NVMe controller's queues; iommu_mode.h over iommu_inputs.h: the IOMMU mode the build and
// command line give), below collect/ and rules/, so each judgement has one implementation.
//
// Each snapshot is judged once per command. capture_snapshot judges what it collected (the link
// verdict, and the queue split where neither debugfs nor the kernel log gave it) and writes the
// verdicts in the schema's fields; a snapshot read from a file is untrusted (hand-edited, or an
// older kdrift's) and is judged from its own facts when rules evaluate it. Judgements says which
// of the two a snapshot handed to the rules is, so audit, capture --format prometheus and a bisect
// step, which capture and evaluate in one process, do not judge again.

#include "snapshot/snapshot.h"

namespace kdrift {

enum class Judgements {
  // As read from a file: its verdicts are what the file says, judged again from its facts.
  kUntrusted,
  // Made from its facts in this process (capture_snapshot, judge_kernel_facts): taken as they are.
  kMade,
};

// Replaces a snapshot's PCIe link verdicts with what its link facts give, gives every PCIe
// NVMe controller without a queue split the one its facts give, and makes unknown an IOMMU mode
// "none" a file claims for a PCI disk where the IOMMU groups were not listed (an older kdrift's
// capture of a sos report): what rule evaluation reads of an untrusted snapshot.
void judge_kernel_facts(Json& snapshot);

}  // namespace kdrift
