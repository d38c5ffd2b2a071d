/* The disks a program counts, set by user space before load, and how a request names its disk
 * in any kernel. Included by each .bpf.c that filters on disks (each object has its own copy). */
#ifndef KDRIFT_TARGET_DISKS_BPF_H
#define KDRIFT_TARGET_DISKS_BPF_H

#include "target_disks.h"

/* MKDEV as the kernel encodes it: major << 20 | minor. */
const volatile __u32 target_disks[KDRIFT_MAX_TARGET_DISKS] = {};
const volatile __u32 target_disk_count = 0;

static __always_inline bool disk_targeted(struct gendisk* disk) {
  if (!disk) return false;
  __u32 device = ((__u32)disk->major << 20) | (__u32)disk->first_minor;
  for (int i = 0; i < KDRIFT_MAX_TARGET_DISKS; i++) {
    if (i >= target_disk_count) break;
    if (target_disks[i] == device) return true;
  }
  return false;
}

/* Some kernels (6.12 for nvme_setup_cmd) mark tracepoint arguments as possibly null, and the
 * verifier then wants the check before the first load. */
static __always_inline struct gendisk* request_disk(struct request* rq) {
  if (!rq) return 0;
  struct request___old* old = (void*)rq;
  if (bpf_core_field_exists(old->rq_disk)) return old->rq_disk;
  return rq->q->disk;
}

#endif
