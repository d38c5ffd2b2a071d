#include "iobench/job_validation.h"

#include <algorithm>

#include "iobench/profile.h"
#include "util/units.h"

namespace kdrift {
namespace {

Result<int64_t> in_range(int64_t value, int64_t low, int64_t high) {
  if (value >= low && value <= high) return value;
  return content_error("from " + std::to_string(low) + " to " + std::to_string(high) + ", not " +
                       std::to_string(value));
}

template <typename T>
Result<T> narrowed(Result<int64_t> checked) {
  if (!checked) return checked.error();
  return static_cast<T>(*checked);
}

Result<std::chrono::microseconds> duration_in_range(std::chrono::microseconds duration,
                                                    std::chrono::microseconds low) {
  if (duration >= low && duration <= kMaxJobTime) return duration;
  return content_error("from " + format_duration(low) + " to " + format_duration(kMaxJobTime) +
                       ", not " + format_duration(duration));
}

}  // namespace

Result<uint64_t> check_block_size(uint64_t bytes) {
  if (bytes > 0 && bytes % kSectorBytes == 0 && bytes <= kMaxBlockSize) return bytes;
  return content_error("a positive multiple of " + std::to_string(kSectorBytes) +
                       " bytes (the sector size) up to " + format_size(kMaxBlockSize) + ", not " +
                       std::to_string(bytes));
}

Result<uint32_t> check_iodepth(int64_t depth) {
  return narrowed<uint32_t>(in_range(depth, 1, kMaxIodepth));
}

Result<uint32_t> check_rwmixread(int64_t percent) {
  return narrowed<uint32_t>(in_range(percent, 0, 100));
}

Result<uint32_t> check_batch_submit(int64_t count) {
  return narrowed<uint32_t>(in_range(count, 0, kMaxIodepth));
}

Result<uint32_t> check_batch_complete_min(int64_t count) {
  return narrowed<uint32_t>(in_range(count, 1, kMaxIodepth));
}

Result<uint32_t> check_batch_complete_max(int64_t count) {
  return narrowed<uint32_t>(in_range(count, 0, kMaxIodepth));
}

Result<uint64_t> check_file_size(uint64_t bytes) {
  if (bytes >= kMinFileSize && bytes <= kMaxFileSize && bytes % kSectorBytes == 0) return bytes;
  return content_error("a multiple of " + std::to_string(kSectorBytes) + " bytes from " +
                       format_size(kMinFileSize) + " to " + format_size(kMaxFileSize) + ", not " +
                       std::to_string(bytes));
}

Result<std::chrono::microseconds> check_runtime(std::chrono::microseconds duration) {
  // A job measured over no time has no rate.
  return duration_in_range(duration, std::chrono::milliseconds(1));
}

Result<std::chrono::microseconds> check_ramp(std::chrono::microseconds duration) {
  return duration_in_range(duration, std::chrono::microseconds(0));
}

Status check_workload(const Workload& workload) {
  uint64_t largest_block = 0;
  for (const uint64_t block_size : workload.block_sizes) {
    largest_block = std::max(largest_block, block_size);
  }
  uint32_t deepest = 0;
  for (const EngineMode& engine : workload.engines) {
    for (const uint32_t depth : workload.iodepths) {
      deepest = std::max(deepest, engine.synchronous() ? 1 : depth);
    }
  }
  if (largest_block * deepest <= kMaxBytesInFlight) return ok_status();
  return content_error("block size " + format_size(largest_block) + " at queue depth " +
                       std::to_string(deepest) + " holds more than " +
                       format_size(kMaxBytesInFlight) + " of buffers");
}

Status check_job_count(std::span<const Workload> workloads) {
  uint64_t jobs = 0;
  for (const Workload& workload : workloads) {
    // Each factor is at most a 1 MiB file's worth of list entries: the product cannot overflow.
    jobs +=
        uint64_t{workload.engines.size()} * workload.block_sizes.size() * workload.iodepths.size();
    if (jobs > kMaxProfileJobs) {
      return content_error("engines x block sizes x queue depths come to more than " +
                           std::to_string(kMaxProfileJobs) + " jobs (at workload \"" +
                           workload.name + "\")");
    }
  }
  return ok_status();
}

}  // namespace kdrift
