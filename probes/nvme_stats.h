/* Shared by nvme_stats.bpf.c and src/trace: NVMe commands and completions per hardware queue,
 * so a report can tell whether polled I/O really completed on poll queues. */
#ifndef KDRIFT_NVME_STATS_H
#define KDRIFT_NVME_STATS_H

#include "target_disks.h"

#define KDRIFT_NVME_MAX_QUEUES 128 /* blk-mq hardware queues counted one by one */

struct kdrift_nvme_counts {
  unsigned long long commands[KDRIFT_NVME_MAX_QUEUES];
  unsigned long long completions[KDRIFT_NVME_MAX_QUEUES];
  /* enum hctx_type + 1 of each queue seen (0: not seen): default, read or poll. */
  unsigned long long queue_type[KDRIFT_NVME_MAX_QUEUES];
  unsigned long long beyond_last_queue; /* commands on queues past KDRIFT_NVME_MAX_QUEUES */
};

#endif
