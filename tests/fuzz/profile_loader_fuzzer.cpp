// Any bytes given as a --profile file: parsing either fails with an error naming the file, or
// yields a profile whose every job is within iobench/job_validation.h's bounds (a job that got
// through with block size 0 once divided by zero in the engines).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "iobench/job_validation.h"
#include "iobench/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kdrift;
  auto profile = parse_profile(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz",
                               "fuzz.toml");
  if (!profile) {
    if (profile.error().describe().rfind("fuzz.toml", 0) != 0) __builtin_trap();
    return 0;
  }
  if (!check_file_size(profile->file_size)) __builtin_trap();
  for (const ProbeJob& job : profile->jobs()) {
    const bool within = check_block_size(job.block_size).ok() && check_iodepth(job.iodepth).ok() &&
                        check_batch_submit(job.batch_submit).ok() &&
                        check_batch_complete_min(job.batch_complete_min).ok() &&
                        check_batch_complete_max(job.batch_complete_max).ok() &&
                        check_rwmixread(job.rwmixread).ok() && check_runtime(job.runtime).ok() &&
                        check_ramp(job.ramp).ok() &&
                        job.block_size * job.effective_iodepth() <= kMaxBytesInFlight;
    if (!within) __builtin_trap();
    (void)job.name();
  }
  return 0;
}
