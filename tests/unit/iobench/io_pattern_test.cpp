#include "iobench/io_pattern.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

namespace kdrift {
namespace {

ProbeJob random_job(Pattern rw, bool like_fio) {
  ProbeJob job;
  job.rw = rw;
  job.block_size = 4096;
  job.like_fio = like_fio;
  return job;
}

uint64_t word_at(const std::vector<char>& data, uint64_t at) {
  uint64_t word = 0;
  std::memcpy(&word, data.data() + at, sizeof word);
  return word;
}

TEST(BlockPermutation, VisitsEveryBlockOnceForAwkwardCounts) {
  for (const uint64_t count : {1ULL, 2ULL, 3ULL, 5ULL, 17ULL, 1000ULL, 4097ULL, 65537ULL}) {
    const BlockPermutation permutation(count, 42);
    std::vector<bool> seen(count);
    for (uint64_t index = 0; index < count; ++index) {
      const uint64_t block = permutation.at(index);
      ASSERT_LT(block, count);
      EXPECT_FALSE(seen[block]) << "block " << block << " twice in " << count;
      seen[block] = true;
    }
  }
}

TEST(BlockPermutation, OtherKeysGiveOtherOrders) {
  BlockPermutation permutation(1000, 1);
  std::vector<uint64_t> first;
  for (uint64_t index = 0; index < 1000; ++index)
    first.push_back(permutation.at(index));
  permutation.rekey(2);
  size_t same = 0;
  for (uint64_t index = 0; index < 1000; ++index)
    same += permutation.at(index) == first[index] ? 1 : 0;
  EXPECT_LT(same, 20U);
  // Scattered, not a rotation of the identity: neighbours in the order are far apart.
  size_t adjacent = 0;
  for (size_t index = 1; index < first.size(); ++index) {
    const uint64_t gap = first[index] > first[index - 1] ? first[index] - first[index - 1]
                                                         : first[index - 1] - first[index];
    adjacent += gap <= 1 ? 1 : 0;
  }
  EXPECT_LT(adjacent, 20U);
}

TEST(IoPattern, LikeFioCoversTheRegionOncePerPassAndThenAgainInAnotherOrder) {
  constexpr uint64_t kBlocks = 777;
  IoPattern pattern(random_job(Pattern::kRandWrite, true), kBlocks * 4096, 7);
  std::vector<uint64_t> passes[2];
  for (auto& pass : passes) {
    std::set<uint64_t> offsets;
    for (uint64_t index = 0; index < kBlocks; ++index) {
      const IoTarget io = pattern.next();
      EXPECT_TRUE(io.write);
      EXPECT_EQ(io.offset % 4096, 0U);
      EXPECT_LT(io.offset, kBlocks * 4096);
      offsets.insert(io.offset);
      pass.push_back(io.offset);
    }
    EXPECT_EQ(offsets.size(), kBlocks);
  }
  EXPECT_NE(passes[0], passes[1]);
}

TEST(IoPattern, UniformWithReplacementRevisitsBlocksWithinAPass) {
  constexpr uint64_t kBlocks = 777;
  IoPattern pattern(random_job(Pattern::kRandRead, false), kBlocks * 4096, 7);
  std::set<uint64_t> offsets;
  for (uint64_t index = 0; index < kBlocks; ++index)
    offsets.insert(pattern.next().offset);
  // Drawing n of n with replacement leaves about 1/e unvisited.
  EXPECT_LT(offsets.size(), kBlocks * 3 / 4);
  EXPECT_GT(offsets.size(), kBlocks / 2);
}

TEST(IoPattern, LikeFioLeavesSequentialJobsSequential) {
  IoPattern pattern(random_job(Pattern::kRead, true), 4 * 4096, 7);
  for (const uint64_t expected : {0U, 4096U, 8192U, 12288U, 0U})
    EXPECT_EQ(pattern.next().offset, expected);
}

TEST(StampSectors, WritesOffsetAndTimeInEverySectorAndNothingElse) {
  std::vector<char> data(4096, 'x');
  const uint64_t offset = 1 << 20;
  const uint64_t elapsed = 3'000'000'123;  // 3 s 123 ns
  stamp_sectors(data.data(), data.size(), offset, elapsed);
  const uint64_t line = ((elapsed ^ offset) & 7) * 64;
  size_t changed = 0;
  for (uint64_t sector = 0; sector < 4096; sector += 512) {
    EXPECT_EQ(word_at(data, sector + line), offset + sector);
    EXPECT_EQ(word_at(data, sector + 48), 3U);
    EXPECT_EQ(word_at(data, sector + 56), 123U);
  }
  for (const char byte : data)
    changed += byte != 'x' ? 1 : 0;
  // 24 bytes a sector at most (fewer when the offset's line is the first); the zero bytes of
  // small values are what compressors then find.
  EXPECT_LE(changed, 8U * 24U);
  EXPECT_GE(changed, 8U * 3U);
}

TEST(StampSectors, LeavesAPartialSectorAlone) {
  std::vector<char> data(300, 'x');
  stamp_sectors(data.data(), data.size(), 0, 5);
  for (const char byte : data)
    EXPECT_EQ(byte, 'x');
}

}  // namespace
}  // namespace kdrift
