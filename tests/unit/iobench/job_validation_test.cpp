#include "iobench/job_validation.h"

#include <gtest/gtest.h>

#include <string>

#include "iobench/profile.h"

namespace kdrift {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;

template <typename T>
std::string refusal(const Result<T>& checked) {
  return checked.ok() ? "accepted" : checked.error().describe();
}

TEST(JobValidation, BlockSizesArePositiveSectorMultiplesUpTo64m) {
  EXPECT_EQ(*check_block_size(512), 512u);
  EXPECT_EQ(*check_block_size(kMaxBlockSize), kMaxBlockSize);
  EXPECT_EQ(refusal(check_block_size(0)),
            "a positive multiple of 512 bytes (the sector size) up to 64m, not 0");
  EXPECT_FALSE(check_block_size(513).ok());
  EXPECT_FALSE(check_block_size(kMaxBlockSize + 512).ok());
}

TEST(JobValidation, QueueDepthsAreFrom1To4096) {
  EXPECT_EQ(*check_iodepth(1), 1u);
  EXPECT_EQ(*check_iodepth(4096), 4096u);
  EXPECT_EQ(refusal(check_iodepth(0)), "from 1 to 4096, not 0");
  EXPECT_EQ(refusal(check_iodepth(100000)), "from 1 to 4096, not 100000");
  EXPECT_FALSE(check_iodepth(-1).ok());
  EXPECT_FALSE(check_iodepth(int64_t{1} << 40).ok());  // not cut to 32 bits first
}

TEST(JobValidation, CountsKeepTheirOwnBounds) {
  EXPECT_EQ(*check_rwmixread(0), 0u);
  EXPECT_EQ(*check_rwmixread(100), 100u);
  EXPECT_FALSE(check_rwmixread(101).ok());
  EXPECT_FALSE(check_rwmixread(-1).ok());
  EXPECT_EQ(*check_batch_submit(0), 0u);  // every free slot
  EXPECT_EQ(*check_batch_submit(4096), 4096u);
  EXPECT_FALSE(check_batch_submit(4097).ok());
  EXPECT_EQ(refusal(check_batch_complete_min(0)), "from 1 to 4096, not 0");
  EXPECT_EQ(*check_batch_complete_min(1), 1u);
  EXPECT_FALSE(check_batch_complete_min(4097).ok());
  EXPECT_EQ(*check_batch_complete_max(0), 0u);  // all available
  EXPECT_FALSE(check_batch_complete_max(4097).ok());
  EXPECT_FALSE(check_batch_complete_max(-1).ok());
}

TEST(JobValidation, FileSizesAreSectorMultiplesFrom1mTo16t) {
  EXPECT_EQ(*check_file_size(kMinFileSize), kMinFileSize);
  EXPECT_EQ(*check_file_size(kMaxFileSize), kMaxFileSize);
  EXPECT_EQ(refusal(check_file_size(0)), "a multiple of 512 bytes from 1m to 16t, not 0");
  EXPECT_FALSE(check_file_size(kMinFileSize - 512).ok());
  EXPECT_FALSE(check_file_size(kMinFileSize + 1).ok());
  EXPECT_FALSE(check_file_size(kMaxFileSize + 512).ok());
}

TEST(JobValidation, RuntimeIsAtLeastAMillisecondRampMayBeZeroBothAtMostAnHour) {
  EXPECT_EQ(*check_runtime(milliseconds(1)), milliseconds(1));
  EXPECT_EQ(refusal(check_runtime(microseconds(0))), "from 1ms to 3600s, not 0us");
  EXPECT_FALSE(check_runtime(hours(1) + microseconds(1)).ok());
  EXPECT_EQ(*check_ramp(microseconds(0)), microseconds(0));
  EXPECT_EQ(*check_ramp(hours(1)), hours(1));
  EXPECT_FALSE(check_ramp(hours(2)).ok());
}

Workload workload(const char* engine, uint64_t block_size, uint32_t iodepth) {
  Workload out;
  out.engines = {*EngineMode::parse(engine)};
  out.block_sizes = {4096, block_size};
  out.iodepths = {1, iodepth};
  return out;
}

TEST(JobValidation, AWorkloadsBuffersAreBounded) {
  EXPECT_TRUE(check_workload(workload("io_uring", 1 << 20, 1024)).ok());
  EXPECT_EQ(refusal(check_workload(workload("io_uring", 64 << 20, 4096))),
            "block size 64m at queue depth 4096 holds more than 1g of buffers");
  // psync has one I/O in flight whatever the profile says.
  EXPECT_TRUE(check_workload(workload("psync", 64 << 20, 4096)).ok());
}

}  // namespace
}  // namespace kdrift
