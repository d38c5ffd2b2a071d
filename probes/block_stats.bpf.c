// SPDX-License-Identifier: GPL-2.0
/* Block-layer statistics for the probe's target disks: counts, bytes, merges, splits, request
 * sizes, depth at issue and log-linear latency histograms, aggregated per CPU in the kernel.
 * Each tracepoint has two programs: the argument list since 5.11, and the older one that led
 * with the request_queue; user space loads the one the running kernel's BTF describes.
 * tp_btf arguments are typed kernel pointers: fields are loaded directly (CO-RE relocates each
 * offset), which costs a load, not a bpf_probe_read_kernel() call, per field. */
/* The kernel types come first: the libbpf headers are written against them. */
/* clang-format off */
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "block_stats.h"
#include "target_disks.bpf.h"
/* clang-format on */

char LICENSE[] SEC("license") = "GPL";

/* Set before load: whether to pair bios with their requests (blk-mq disks only: a bio-based
 * disk has no request to complete a bio). */
const volatile bool pair_bios = false;

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, __u64); /* struct request * */
  __type(value, struct kdrift_request_start);
} request_starts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, __u64); /* struct bio * */
  __type(value, __u64);
} bio_starts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct kdrift_block_counts);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, KDRIFT_LATENCIES);
  __type(key, __u32);
  __type(value, struct kdrift_latency_hist);
} latencies SEC(".maps");

/* Requests issued and not yet completed, over all target disks. */
__u64 in_flight = 0;

static __always_inline struct kdrift_block_counts* my_counts(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&counts, &zero);
}

static __always_inline struct gendisk* bio_disk(struct bio* bio) {
  if (!bio) return 0;
  struct bio___old* old = (void*)bio;
  if (bpf_core_field_exists(old->bi_disk)) return old->bi_disk;
  return bio->bi_bdev->bd_disk;
}

/* REQ_OP_READ is 0 and REQ_OP_WRITE 1 in the low 8 bits of the op flags, in every kernel. */
static __always_inline int direction(unsigned int op_flags) {
  unsigned int op = op_flags & 0xff;
  return op == 0 ? KDRIFT_DIR_READ : op == 1 ? KDRIFT_DIR_WRITE : KDRIFT_DIR_OTHER;
}

static __always_inline unsigned int log2_u64(__u64 value) {
  unsigned int result = 0;
  for (int shift = 32; shift > 0; shift >>= 1) {
    if (value >= (1ULL << shift)) {
      value >>= shift;
      result += shift;
    }
  }
  return result;
}

/* LatencyHistogram::bucket_of, in BPF. */
static __always_inline unsigned int latency_bucket(__u64 ns) {
  if (ns < KDRIFT_LAT_EXACT) return (unsigned int)ns;
  unsigned int power = log2_u64(ns);
  if (power > KDRIFT_LAT_MAX_LOG2) return KDRIFT_LAT_BUCKETS - 1;
  unsigned int shift = power - KDRIFT_LAT_SUB_BITS;
  unsigned int sub = (unsigned int)(ns >> shift) - (1U << KDRIFT_LAT_SUB_BITS);
  return KDRIFT_LAT_EXACT + (power - (KDRIFT_LAT_SUB_BITS + 1)) * (1U << KDRIFT_LAT_SUB_BITS) + sub;
}

static __always_inline void record_latency(__u32 which, __u64 from_ns, __u64 to_ns) {
  if (!from_ns || to_ns < from_ns) return;
  struct kdrift_latency_hist* h = bpf_map_lookup_elem(&latencies, &which);
  if (!h) return;
  __u64 bucket = latency_bucket(to_ns - from_ns);
  /* Keeps the bounds check and the index in one register, where the verifier sees both. */
  barrier_var(bucket);
  if (bucket < KDRIFT_LAT_BUCKETS) h->buckets[bucket]++;
}

static __always_inline int on_bio_queue(struct bio* bio) {
  if (!disk_targeted(bio_disk(bio))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (!c) return 0;
  int dir = direction(bio->bi_opf);
  c->bios[dir]++;
  c->bio_bytes[dir] += bio->bi_iter.bi_size;
  if (pair_bios) {
    __u64 key = (__u64)bio;
    __u64 now = bpf_ktime_get_ns();
    if (bpf_map_update_elem(&bio_starts, &key, &now, BPF_ANY) != 0) c->dropped_bio_starts++;
  }
  return 0;
}

/* A bio merged into a request ends its own life there: its start is forgotten. */
static __always_inline int on_bio_merge(struct bio* bio, bool front) {
  if (!disk_targeted(bio_disk(bio))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (!c) return 0;
  if (front) {
    c->bio_frontmerges++;
  } else {
    c->bio_backmerges++;
  }
  if (pair_bios) {
    __u64 key = (__u64)bio;
    bpf_map_delete_elem(&bio_starts, &key);
  }
  return 0;
}

static __always_inline int on_split(struct bio* bio) {
  if (!disk_targeted(bio_disk(bio))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (c) c->splits++;
  return 0;
}

static __always_inline int on_request_merge(struct request* rq) {
  if (!disk_targeted(request_disk(rq))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (c) c->request_merges++;
  __u64 key = (__u64)rq;
  bpf_map_delete_elem(&request_starts, &key);
  return 0;
}

static __always_inline int on_insert(struct request* rq) {
  if (!disk_targeted(request_disk(rq))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (!c) return 0;
  c->inserted++;
  __u64 key = (__u64)rq;
  struct kdrift_request_start start = {.inserted_ns = bpf_ktime_get_ns()};
  if (bpf_map_update_elem(&request_starts, &key, &start, BPF_ANY) != 0) c->dropped_request_starts++;
  return 0;
}

static __always_inline void count_depth(struct kdrift_block_counts* c, __u64 depth) {
  if (depth > KDRIFT_DEPTH_BUCKETS - 1) depth = KDRIFT_DEPTH_BUCKETS - 1;
  barrier_var(depth);
  if (depth < KDRIFT_DEPTH_BUCKETS) c->depth[depth]++;
}

/* The kernel hands a request out again only once its last I/O has completed or been requeued:
 * issued again without a requeue, its last completion ran no rq_complete. The kernel skips a
 * program nested in itself on one CPU (a miss it counts), and some kernels run no BPF at all in
 * the context of certain tasks: this lab VM's runs none for its init's (PID 1's) threads, so a
 * completion in a block softirq that interrupted one of them is never seen (README.md). */
static __always_inline void count_lost(struct kdrift_block_counts* c,
                                       const struct kdrift_request_start* start) {
  __u32 dir = start->direction;
  /* Keeps the bounds check and the index in one register, where the verifier sees both. */
  barrier_var(dir);
  if (dir < KDRIFT_DIRS) {
    c->lost[dir]++;
    c->lost_bytes[dir] += start->issued_bytes;
  }
}

static __always_inline int on_issue(struct request* rq) {
  if (!disk_targeted(request_disk(rq))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (!c) return 0;
  __u64 now = bpf_ktime_get_ns();
  int dir = direction(rq->cmd_flags);
  unsigned int bytes = rq->__data_len;
  c->issued[dir]++;
  c->issued_bytes[dir] += bytes;
  unsigned int type = KDRIFT_QUEUE_UNKNOWN;
  struct blk_mq_hw_ctx* hctx = rq->mq_hctx;
  if (hctx) {
    type = hctx->type;
    if (type > KDRIFT_QUEUE_POLL) type = KDRIFT_QUEUE_UNKNOWN;
  }
  c->issued_by_queue_type[type]++;
  __u64 size_bucket = log2_u64(bytes);
  barrier_var(size_bucket);
  if (size_bucket < KDRIFT_SIZE_BUCKETS) c->request_bytes[size_bucket]++;

  __u64 key = (__u64)rq;
  struct kdrift_request_start* start = bpf_map_lookup_elem(&request_starts, &key);
  if (start) {
    /* A requeued request is issued again: it is already counted in flight. Issued again
     * without a requeue, its previous completion never reached rq_complete; the in-flight
     * count taken then stands for this issue. */
    if (start->issued_ns == 0) {
      count_depth(c, __sync_fetch_and_add(&in_flight, 1));
    } else if (!start->requeued) {
      count_lost(c, start);
    }
    record_latency(KDRIFT_LAT_QUEUE, start->inserted_ns, now);
    start->issued_ns = now;
    start->requeued = 0;
    start->issued_bytes = bytes;
    start->direction = dir;
  } else {
    /* Issued straight to the driver, without passing the scheduler. */
    struct kdrift_request_start fresh = {.issued_ns = now, .issued_bytes = bytes, .direction = dir};
    if (bpf_map_update_elem(&request_starts, &key, &fresh, BPF_ANY) != 0) {
      c->dropped_request_starts++;
    } else {
      count_depth(c, __sync_fetch_and_add(&in_flight, 1));
    }
  }
  return 0;
}

static __always_inline int on_requeue(struct request* rq) {
  if (!disk_targeted(request_disk(rq))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (c) c->requeued++;
  __u64 key = (__u64)rq;
  struct kdrift_request_start* start = bpf_map_lookup_elem(&request_starts, &key);
  if (start) start->requeued = 1;
  return 0;
}

static __always_inline int on_complete(struct request* rq, int error, unsigned int bytes) {
  if (!disk_targeted(request_disk(rq))) return 0;
  struct kdrift_block_counts* c = my_counts();
  if (!c) return 0;
  __u64 now = bpf_ktime_get_ns();
  int dir = direction(rq->cmd_flags);
  c->completed[dir]++;
  c->completed_bytes[dir] += bytes;
  if (error) c->errors++;

  __u64 key = (__u64)rq;
  struct kdrift_request_start* start = bpf_map_lookup_elem(&request_starts, &key);
  if (start && start->issued_ns) {
    record_latency(KDRIFT_LAT_DEVICE, start->issued_ns, now);
    __sync_fetch_and_add(&in_flight, -1);
  } else {
    c->unmatched_completions++;
  }
  if (start) bpf_map_delete_elem(&request_starts, &key);

  if (pair_bios) {
    __u64 bio_key = (__u64)rq->bio;
    __u64* queued = bpf_map_lookup_elem(&bio_starts, &bio_key);
    if (queued) {
      record_latency(KDRIFT_LAT_BIO, *queued, now);
      bpf_map_delete_elem(&bio_starts, &bio_key);
    }
  }
  return 0;
}

/* One program per argument layout; the _q flavour is the pre-5.11 one with the queue first. */
#define REQUEST_PROGRAMS(name, tracepoint, handler)                     \
  SEC("tp_btf/" #tracepoint)                                            \
  int BPF_PROG(name, struct request* rq) {                              \
    return handler(rq);                                                 \
  }                                                                     \
  SEC("tp_btf/" #tracepoint)                                            \
  int BPF_PROG(name##_q, struct request_queue* q, struct request* rq) { \
    return handler(rq);                                                 \
  }

REQUEST_PROGRAMS(rq_insert, block_rq_insert, on_insert)
REQUEST_PROGRAMS(rq_issue, block_rq_issue, on_issue)
REQUEST_PROGRAMS(rq_requeue, block_rq_requeue, on_requeue)
REQUEST_PROGRAMS(rq_merge, block_rq_merge, on_request_merge)

SEC("tp_btf/block_rq_complete")
int BPF_PROG(rq_complete, struct request* rq, int error, unsigned int bytes) {
  return on_complete(rq, error, bytes);
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(bio_queue, struct bio* bio) {
  return on_bio_queue(bio);
}
SEC("tp_btf/block_bio_queue")
int BPF_PROG(bio_queue_q, struct request_queue* q, struct bio* bio) {
  return on_bio_queue(bio);
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(bio_backmerge, struct bio* bio) {
  return on_bio_merge(bio, false);
}
SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(bio_backmerge_q, struct request_queue* q, struct request* rq, struct bio* bio) {
  return on_bio_merge(bio, false);
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(bio_frontmerge, struct bio* bio) {
  return on_bio_merge(bio, true);
}
SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(bio_frontmerge_q, struct request_queue* q, struct request* rq, struct bio* bio) {
  return on_bio_merge(bio, true);
}

SEC("tp_btf/block_split")
int BPF_PROG(split, struct bio* bio, unsigned int new_sector) {
  return on_split(bio);
}
SEC("tp_btf/block_split")
int BPF_PROG(split_q, struct request_queue* q, struct bio* bio, unsigned int new_sector) {
  return on_split(bio);
}
