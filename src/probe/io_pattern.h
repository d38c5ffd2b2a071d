#pragma once
// Where the next I/O goes and whether it writes. Random offsets are uniform over the
// block-aligned region (no random map: a fio-style map costs a bitmap walk per I/O and changes
// nothing a device can tell apart at these run lengths).

#include <cstddef>
#include <cstdint>
#include <cstring>

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
        read_percent_(job.rwmixread) {}

  IoTarget next() {
    IoTarget io;
    if (random_offsets_) {
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
  uint64_t next_block_ = 0;
  bool random_offsets_;
  bool mixed_;
  bool writes_;
  uint32_t read_percent_;
};

}  // namespace kdrift
