/* Shared by io_stats.bpf.c and src/trace: io_uring and IOMMU event counts during a span. */
#ifndef KDRIFT_IO_STATS_H
#define KDRIFT_IO_STATS_H

struct kdrift_io_counts {
  unsigned long long uring_submissions;
  unsigned long long uring_completions;
  unsigned long long uring_punts; /* requests handed to an io-wq worker */
  unsigned long long iommu_maps;
  unsigned long long iommu_map_bytes;
  unsigned long long iommu_unmaps;
  unsigned long long iommu_unmap_bytes;
};

#endif
