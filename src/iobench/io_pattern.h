#pragma once
// Where the next I/O goes and whether it writes, and what a write carries. Random offsets are
// uniform over the block-aligned region, with replacement; a like_fio job draws them from a
// permutation instead, so every block is visited once per pass as under fio's random map.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "model/probe_job.h"

namespace kdrift {

// xoshiro256+ seeded by splitmix64: a few cycles per number, far better spread than needed.
class FastRandom {
 public:
  explicit FastRandom(uint64_t seed) {
    for (auto& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t result = state_[0] + state_[3];
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = (state_[3] << 45) | (state_[3] >> 19);
    return result;
  }
  // Uniform in [0, bound) by multiply-shift: no division on the hot path.
  uint64_t below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
  }

 private:
  uint64_t state_[4];
};

// Incompressible bytes, so that zram, compressing SSDs and dedup store every write for real and
// reads come back from the medium; the same seed gives the same bytes.
inline void fill_incompressible(FastRandom& random, char* data, size_t length) {
  for (size_t offset = 0; offset + sizeof(uint64_t) <= length; offset += sizeof(uint64_t)) {
    const uint64_t word = random.next();
    std::memcpy(data + offset, &word, sizeof word);
  }
}

// fio's scramble_buffers, as its output shows it: in every 512-byte sector of a write, the
// sector's byte offset in one of the eight 64-byte lines (the same line for the whole I/O, picked
// by time and offset) and the submit time (seconds, nanoseconds) in the last 16 bytes of the
// first line. The rest of the buffer stays as filled. Buffers keep no stamp from being read.
inline void stamp_sectors(char* data, uint64_t length, uint64_t offset, uint64_t elapsed_ns) {
  constexpr uint64_t kSector = 512;
  constexpr uint64_t kLine = 64;
  const uint64_t line = ((elapsed_ns ^ offset) & 7) * kLine;
  const uint64_t time[2] = {elapsed_ns / 1'000'000'000, elapsed_ns % 1'000'000'000};
  for (uint64_t sector = 0; sector + kSector <= length; sector += kSector) {
    const uint64_t sector_offset = offset + sector;
    std::memcpy(data + sector + line, &sector_offset, sizeof sector_offset);
    std::memcpy(data + sector + kLine - sizeof time, time, sizeof time);
  }
}

// A permutation of [0, count) chosen by a key: a balanced Feistel network over the smallest even
// number of bits that holds count, walking the cycle past values outside the range. Visiting
// at(0), at(1), ... at(count - 1) touches every block once, as scattered as a random map's
// picks, with no bitmap; the domain is under 4 * count, so a lookup takes under 4 walks on
// average.
class BlockPermutation {
 public:
  BlockPermutation(uint64_t count, uint64_t key) : count_(count) {
    unsigned bits = 2;
    while (bits < 64 && (uint64_t{1} << bits) < count)
      bits += 2;
    half_bits_ = bits / 2;
    half_mask_ = (uint64_t{1} << half_bits_) - 1;
    rekey(key);
  }
  void rekey(uint64_t key) {
    for (auto& round_key : keys_) {
      key += 0x9e3779b97f4a7c15ULL;
      round_key = key;
    }
  }
  uint64_t at(uint64_t index) const {
    uint64_t value = index;
    do {
      value = encrypt(value);
    } while (value >= count_);
    return value;
  }

 private:
  uint64_t encrypt(uint64_t value) const {
    uint64_t left = value >> half_bits_;
    uint64_t right = value & half_mask_;
    for (const uint64_t key : keys_) {
      uint64_t mixed = (right ^ key) * 0xbf58476d1ce4e5b9ULL;
      mixed ^= mixed >> 31;
      const uint64_t next = left ^ (mixed & half_mask_);
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }

  uint64_t count_;
  unsigned half_bits_ = 1;
  uint64_t half_mask_ = 1;
  uint64_t keys_[4] = {};
};

struct IoTarget {
  uint64_t offset;
  bool write;
};

class IoPattern {
 public:
  IoPattern(const ProbeJob& job, uint64_t region_bytes, uint64_t seed)
      : random_(seed),
        block_size_(job.block_size),
        blocks_(region_bytes / job.block_size),
        random_offsets_(pattern_random(job.rw)),
        mixed_(job.rw == Pattern::kRandRw),
        writes_(pattern_writes(job.rw)),
        read_percent_(job.rwmixread) {
    if (random_offsets_ && job.like_fio) map_.emplace(blocks_, random_.next());
  }

  IoTarget next() {
    IoTarget io;
    if (map_) {
      io.offset = map_->at(next_block_) * block_size_;
      if (++next_block_ == blocks_) {
        next_block_ = 0;
        map_->rekey(random_.next());
      }
    } else if (random_offsets_) {
      io.offset = random_.below(blocks_) * block_size_;
    } else {
      io.offset = next_block_ * block_size_;
      if (++next_block_ == blocks_) next_block_ = 0;
    }
    io.write = mixed_ ? random_.below(100) >= read_percent_ : writes_;
    return io;
  }

 private:
  FastRandom random_;
  uint64_t block_size_;
  uint64_t blocks_;
  uint64_t next_block_ = 0;  // sequential: the next block; random map: the pass position
  std::optional<BlockPermutation> map_;
  bool random_offsets_;
  bool mixed_;
  bool writes_;
  uint32_t read_percent_;
};

}  // namespace kdrift
