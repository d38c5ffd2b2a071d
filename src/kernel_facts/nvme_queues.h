#pragma once
// The split of an NVMe PCIe controller's I/O queues into default, read and poll queues
// (nvme.controllers.*.queues), worked out from facts that last as long as the boot does, for
// when neither debugfs (hctx*/type) nor the kernel log ("N/N/N default/read/poll queues") tells
// it. The NVMe collector records it with queues_source "derived"; a snapshot read from a file
// that has no split at all (an older capture of a host whose kernel log had wrapped) gets it from
// its own facts (kernel_facts.h), so that no verdict waits on a log line.
//
// The arithmetic is the driver's own at every controller reset (drivers/nvme/host/pci.c,
// nvme_setup_irqs and nvme_calc_irq_sets, 5.0 to 6.18): of the I/O queues it got, poll queues
// take min(poll_queues, total - 1), since one interrupt-driven queue must remain; of the
// interrupt-driven rest, read queues are 0 when write_queues is 0 or one interrupt queue is
// left, 1 when write_queues takes them all, else rest - write_queues; default queues are the
// remainder.

#include <cstdint>
#include <optional>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

struct NvmeQueueFacts {
  // blk-mq hardware contexts of one of the controller's namespaces (/sys/block/<ns>/mq/N): the
  // I/O queues in use, every namespace sharing the controller's tag set.
  std::optional<uint64_t> hardware_queues;
  // The controller's queue_count: the admin queue plus every I/O queue allocated since probe (a
  // reset with fewer queues does not lower it), used only when no namespace lists its queues.
  std::optional<uint64_t> queue_count;
  // The nvme module's parameters. Both are writable at runtime and sampled at each reset, so a
  // value written since the last reset gives a split the kernel has not applied yet: this is why
  // debugfs and the kernel log are preferred.
  std::optional<uint64_t> poll_queues;
  std::optional<uint64_t> write_queues;
};

// {default, read, poll}, or why the facts do not determine it.
Result<Json> derive_nvme_queue_split(const NvmeQueueFacts& facts);

// Gives every PCIe controller in snapshot's nvme section that has no "queues" the split derived
// from the snapshot's own facts (nvme.parameters.nvme, the controller's queue_count, its
// namespaces' block.devices.*.mq), with queues_source "derived".
void derive_missing_nvme_queues(Json& snapshot);

}  // namespace kdrift
