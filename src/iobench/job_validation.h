#pragma once
// The bounds of every probe parameter, kept the same way whether a profile (iobench/profile.h) or
// a command-line flag (iobench/override_flags.h) set it. Each check returns the value it accepts,
// narrowed to the field's type, or says what is allowed; the caller names the key or the flag.

#include <chrono>
#include <cstdint>
#include <span>

#include "util/result.h"

namespace kdrift {

struct Workload;

// O_DIRECT transfers are whole sectors.
inline constexpr uint64_t kSectorBytes = 512;
// Twice the largest block size of profiles/blocksize-sweep.toml.
inline constexpr uint64_t kMaxBlockSize = uint64_t{64} << 20;
inline constexpr uint32_t kMaxIodepth = 4096;
// A job holds a buffer per slot of its queue: block size x effective queue depth, at most this.
inline constexpr uint64_t kMaxBytesInFlight = uint64_t{1} << 30;
inline constexpr uint64_t kMinFileSize = uint64_t{1} << 20;
inline constexpr uint64_t kMaxFileSize = uint64_t{1} << 44;  // 16 TiB
// A probe job measures seconds; an hour of ramp or runtime is far beyond any profile's.
inline constexpr std::chrono::microseconds kMaxJobTime = std::chrono::hours(1);
// The jobs a profile's matrices may expand to: profiles/blocksize-sweep.toml, the largest
// built-in, has 28; at a second a job, 1024 already take 17 minutes a round. Counted before
// anything is expanded, so a 100 KB list of block sizes times depths is refused, not built.
inline constexpr uint64_t kMaxProfileJobs = 1024;

Result<uint64_t> check_block_size(uint64_t bytes);
Result<uint32_t> check_iodepth(int64_t depth);
Result<uint32_t> check_rwmixread(int64_t percent);
// I/Os per submit call; 0: every free slot.
Result<uint32_t> check_batch_submit(int64_t count);
// Completions waited for per reap: at least one.
Result<uint32_t> check_batch_complete_min(int64_t count);
// Completions reaped at most per pass; 0: all available.
Result<uint32_t> check_batch_complete_max(int64_t count);
// Of the file created in a directory target.
Result<uint64_t> check_file_size(uint64_t bytes);
Result<std::chrono::microseconds> check_runtime(std::chrono::microseconds duration);
Result<std::chrono::microseconds> check_ramp(std::chrono::microseconds duration);

// What no single field shows: the buffers the workload's largest job would hold.
Status check_workload(const Workload& workload);
// Engines x block sizes x depths summed over the workloads, at most kMaxProfileJobs.
Status check_job_count(std::span<const Workload> workloads);

}  // namespace kdrift
