// SPDX-License-Identifier: GPL-2.0
/* io_uring and IOMMU events during a span. io_uring events are counted for one process (the
 * probe, with its io-wq workers and SQPOLL thread, which share its tgid) or for all; IOMMU
 * mappings have no device in their tracepoint and are counted for the whole system. The
 * io_uring programs read no arguments, so one program serves every argument layout. */
/* The kernel types come first: the libbpf headers are written against them. */
/* clang-format off */
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "io_stats.h"
/* clang-format on */

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid = 0; /* 0: every process */

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct kdrift_io_counts);
} counts SEC(".maps");

static __always_inline struct kdrift_io_counts* my_counts(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&counts, &zero);
}

static __always_inline struct kdrift_io_counts* uring_counts(void) {
  if (target_tgid != 0 && (bpf_get_current_pid_tgid() >> 32) != target_tgid) return 0;
  return my_counts();
}

/* io_uring_submit_req since 6.0; io_uring_submit_sqe before. */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(uring_submit_req) {
  struct kdrift_io_counts* c = uring_counts();
  if (c) c->uring_submissions++;
  return 0;
}

SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(uring_submit_sqe) {
  struct kdrift_io_counts* c = uring_counts();
  if (c) c->uring_submissions++;
  return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete) {
  struct kdrift_io_counts* c = uring_counts();
  if (c) c->uring_completions++;
  return 0;
}

SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(uring_queue_async_work) {
  struct kdrift_io_counts* c = uring_counts();
  if (c) c->uring_punts++;
  return 0;
}

SEC("tp_btf/map")
int BPF_PROG(iommu_map, unsigned long iova, __u64 paddr, __u64 size) {
  struct kdrift_io_counts* c = my_counts();
  if (!c) return 0;
  c->iommu_maps++;
  c->iommu_map_bytes += size;
  return 0;
}

SEC("tp_btf/unmap")
int BPF_PROG(iommu_unmap, unsigned long iova, __u64 size, __u64 unmapped_size) {
  struct kdrift_io_counts* c = my_counts();
  if (!c) return 0;
  c->iommu_unmaps++;
  c->iommu_unmap_bytes += unmapped_size;
  return 0;
}
