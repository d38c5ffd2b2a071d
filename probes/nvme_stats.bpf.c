// SPDX-License-Identifier: GPL-2.0
/* NVMe commands and completions per blk-mq hardware queue (the NVMe queue id less one) for the
 * target disks, from the nvme driver's own tracepoints (in nvme_core's BTF when it is a
 * module). The queue's type says whether it is a poll queue. */
/* The kernel types come first: the libbpf headers are written against them. */
/* clang-format off */
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "nvme_stats.h"
#include "target_disks.bpf.h"
/* clang-format on */

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct kdrift_nvme_counts);
} counts SEC(".maps");

/* The hardware queue of a request to a target disk and its type, or -1. */
static __always_inline long target_queue(struct request* rq, struct kdrift_nvme_counts** c,
                                         unsigned short* type) {
  if (!disk_targeted(request_disk(rq))) return -1;
  struct blk_mq_hw_ctx* hctx = rq->mq_hctx;
  __u32 zero = 0;
  *c = bpf_map_lookup_elem(&counts, &zero);
  if (!hctx || !*c) return -1;
  *type = hctx->type;
  return hctx->queue_num;
}

SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(nvme_setup_cmd, struct request* rq, void* command) {
  struct kdrift_nvme_counts* c = 0;
  unsigned short type = 0;
  __u64 queue = (__u64)target_queue(rq, &c, &type);
  barrier_var(queue);
  if (!c || queue == (__u64)-1) return 0;
  if (queue >= KDRIFT_NVME_MAX_QUEUES) {
    c->beyond_last_queue++;
    return 0;
  }
  c->commands[queue]++;
  c->queue_type[queue] = type + 1;
  return 0;
}

SEC("tp_btf/nvme_complete_rq")
int BPF_PROG(nvme_complete_rq, struct request* rq) {
  struct kdrift_nvme_counts* c = 0;
  unsigned short type = 0;
  __u64 queue = (__u64)target_queue(rq, &c, &type);
  barrier_var(queue);
  if (!c || queue >= KDRIFT_NVME_MAX_QUEUES) return 0;
  c->completions[queue]++;
  return 0;
}
