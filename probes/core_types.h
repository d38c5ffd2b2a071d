/* The kernel types the probes read, reduced to the fields they use. CO-RE
 * (preserve_access_index) relocates every access against the running kernel's BTF, so these
 * need only the right names, not the right layout: the build does not depend on the build
 * machine's kernel. Fields that exist only in some kernels are read behind
 * bpf_core_field_exists() through the ___old flavours. */
#ifndef KDRIFT_CORE_TYPES_H
#define KDRIFT_CORE_TYPES_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef long long __s64;
typedef __u32 __be32;
typedef __u16 __be16;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

/* The BPF map and program type enums libbpf's helpers refer to. */
enum bpf_map_type {
  BPF_MAP_TYPE_HASH = 1,
  BPF_MAP_TYPE_ARRAY = 2,
  BPF_MAP_TYPE_PERCPU_ARRAY = 6,
};
enum {
  BPF_ANY = 0,
  BPF_NOEXIST = 1,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct gendisk {
  int major;
  int first_minor;
};

struct block_device {
  __u32 bd_dev;
  struct gendisk* bd_disk;
};

struct request_queue {
  struct gendisk* disk;
};

struct blk_mq_hw_ctx {
  unsigned short type;
  unsigned int queue_num;
};

struct bvec_iter {
  __u64 bi_sector;
  unsigned int bi_size;
};

struct bio {
  struct block_device* bi_bdev;
  unsigned int bi_opf;
  struct bvec_iter bi_iter;
};

/* Before 5.12 a bio named its disk directly. */
struct bio___old {
  struct gendisk* bi_disk;
};

struct request {
  struct request_queue* q;
  struct blk_mq_hw_ctx* mq_hctx;
  unsigned int cmd_flags;
  unsigned int __data_len;
  __u64 __sector;
  struct bio* bio;
};

/* Before 5.17 a request named its disk directly. */
struct request___old {
  struct gendisk* rq_disk;
};

#pragma clang attribute pop

#endif
