/* Shared by block_stats.bpf.c and src/trace: what the block programs aggregate in the kernel.
 * User space reads it once, when tracing stops; nothing is streamed per event. */
#ifndef KDRIFT_BLOCK_STATS_H
#define KDRIFT_BLOCK_STATS_H

#include "target_disks.h"

/* Latency histograms use the buckets of kdrift's LatencyHistogram (src/util): exact below
 * 256 ns, then 128 linear sub-buckets per power of two (a midpoint within 0.4 %), up to 2^37 ns
 * (137 s); larger values land in the last bucket. 31 KiB, inside the 32 KiB per-CPU limit. */
#define KDRIFT_LAT_SUB_BITS 7
#define KDRIFT_LAT_MAX_LOG2 36
#define KDRIFT_LAT_EXACT (2 << KDRIFT_LAT_SUB_BITS)
#define KDRIFT_LAT_BUCKETS \
  (KDRIFT_LAT_EXACT + (KDRIFT_LAT_MAX_LOG2 - KDRIFT_LAT_SUB_BITS) * (1 << KDRIFT_LAT_SUB_BITS))
#define KDRIFT_SIZE_BUCKETS 33   /* log2 of the request's bytes */
#define KDRIFT_DEPTH_BUCKETS 257 /* requests in flight at issue: 0..255, then 256 or more */

enum kdrift_dir { KDRIFT_DIR_READ, KDRIFT_DIR_WRITE, KDRIFT_DIR_OTHER, KDRIFT_DIRS };

/* The blk-mq hardware queue type a request was issued on (enum hctx_type), so a report can
 * tell polled completions from interrupt-driven ones. */
enum kdrift_queue_type {
  KDRIFT_QUEUE_DEFAULT,
  KDRIFT_QUEUE_READ,
  KDRIFT_QUEUE_POLL,
  KDRIFT_QUEUE_UNKNOWN,
  KDRIFT_QUEUE_TYPES
};

enum kdrift_latency {
  KDRIFT_LAT_QUEUE,  /* insert -> issue: time in the I/O scheduler */
  KDRIFT_LAT_DEVICE, /* issue -> complete: time in the driver and the device */
  KDRIFT_LAT_BIO,    /* bio queued -> its request completed (the request's first bio) */
  KDRIFT_LATENCIES
};

struct kdrift_block_counts {
  unsigned long long bios[KDRIFT_DIRS];
  unsigned long long bio_bytes[KDRIFT_DIRS];
  unsigned long long bio_backmerges;
  unsigned long long bio_frontmerges;
  unsigned long long request_merges;
  unsigned long long splits;
  unsigned long long inserted;
  unsigned long long issued[KDRIFT_DIRS];
  unsigned long long issued_bytes[KDRIFT_DIRS];
  unsigned long long issued_by_queue_type[KDRIFT_QUEUE_TYPES];
  unsigned long long completed[KDRIFT_DIRS];
  unsigned long long completed_bytes[KDRIFT_DIRS];
  unsigned long long requeued;
  unsigned long long errors;
  /* Completions of requests issued before tracing started: no issue time to pair with. */
  unsigned long long unmatched_completions;
  /* Completions the kernel made, and diskstats counted, that never ran a program: found when
   * their request was issued again without a requeue, and counted by the direction and size of
   * the issue they completed. */
  unsigned long long lost[KDRIFT_DIRS];
  unsigned long long lost_bytes[KDRIFT_DIRS];
  /* Start times that did not fit the tables (their latencies are missing, counts are not). */
  unsigned long long dropped_request_starts;
  unsigned long long dropped_bio_starts;
  unsigned long long request_bytes[KDRIFT_SIZE_BUCKETS];
  unsigned long long depth[KDRIFT_DEPTH_BUCKETS];
};

/* What the programs hold per request (keyed by its struct request *) from its insert or issue
 * until they see it complete; user space reads what is left when tracing stops. */
struct kdrift_request_start {
  unsigned long long inserted_ns;
  unsigned long long issued_ns;
  /* Requeued since its last issue: the next issue is the same I/O again, not a new one. */
  unsigned long long requeued;
  /* What the last issue asked for: a completion the programs never see is counted by it. */
  unsigned int issued_bytes;
  unsigned int direction;
};

/* One per kdrift_latency (per-CPU values are limited to 32 KiB, so one map entry each). */
struct kdrift_latency_hist {
  unsigned long long buckets[KDRIFT_LAT_BUCKETS];
};

#endif
