#pragma once
// The bookkeeping the queued engines (io_uring, libaio) share: which I/O slots are free, how
// many to prepare each round (every free one, or batch_submit of them once that many are free,
// as fio's iodepth_batch_submit), how many completions to wait for (iodepth_batch_complete_min)
// and to take at most (iodepth_batch_complete_max), what a completion means for the job, and when
// to stop: once the recorder's window is over, or after a failure, and only when nothing is left
// in flight.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "iobench/engine.h"
#include "iobench/recorder.h"
#include "model/probe_job.h"

namespace kdrift {

// What a queued engine remembers of the I/O in a slot.
struct SlotIo {
  uint64_t prepared_ns = 0;
  uint64_t submitted_ns = 0;
  uint64_t offset = 0;
  bool write = false;
};

class SlotQueue {
 public:
  explicit SlotQueue(const ProbeJob& job)
      : batch_(job.batch_submit == 0 ? 0 : std::min(job.batch_submit, job.iodepth)),
        complete_min_(job.batch_complete_min),
        complete_max_(job.batch_complete_max),
        block_size_(job.block_size) {
    free_.reserve(job.iodepth);
    for (uint32_t slot = job.iodepth; slot > 0; --slot)
      free_.push_back(slot - 1);
  }

  // Whether to go on; stops submitting once the window is over.
  bool next_round(Recorder& recorder, uint64_t now_ns) {
    check_window(recorder, now_ns);
    return !(stopping_ && inflight_ == 0);
  }
  void check_window(Recorder& recorder, uint64_t now_ns) {
    if (!stopping_ && recorder.finished(now_ns)) stopping_ = true;
  }
  void stop() { stopping_ = true; }

  // Slots to prepare this round.
  size_t ready() const {
    if (stopping_ || free_.empty() || (batch_ != 0 && free_.size() < batch_)) return 0;
    return batch_ == 0 ? free_.size() : batch_;
  }
  uint32_t take() {
    const uint32_t slot = free_.back();
    free_.pop_back();
    ++inflight_;
    return slot;
  }
  // A slot prepared but never submitted, or one whose I/O completed.
  void give_back(uint32_t slot) {
    free_.push_back(slot);
    --inflight_;
  }

  // The I/O in slot completed with result (bytes, or -errno): timed when whole; the first that
  // is not becomes the job's failure and stops the queue. The slot is free again.
  void complete(uint32_t slot, const SlotIo& io, long result, uint64_t now_ns, Recorder& recorder,
                std::optional<IoFailure>& failure) {
    if (result == static_cast<long>(block_size_)) {
      recorder.completed(io.write, io.prepared_ns, io.submitted_ns, now_ns);
    } else if (!failure) {
      failure = transfer_failure(io.write, io.offset, result);
      stop();
    }
    give_back(slot);
  }

  // Completions to wait for after submitting `prepared` I/Os: none while more could be
  // prepared right away, else at least one.
  uint32_t wait_count(size_t prepared) const {
    if (prepared != 0 && !free_.empty() && ready() != 0) return 0;
    return std::max(1u, std::min(complete_min_, inflight_));
  }
  // Completions to take at most in one reap that waits for `wait`: complete_max of those in
  // flight (0: all of them), never fewer than `wait` (fio's td_io_getevents: max is capped at
  // the depth in flight, then raised to min).
  uint32_t reap_limit(uint32_t wait) const {
    const uint32_t most = complete_max_ == 0 ? inflight_ : std::min(complete_max_, inflight_);
    return std::max(most, wait);
  }
  uint32_t inflight() const { return inflight_; }

 private:
  uint32_t batch_;
  uint32_t complete_min_;
  uint32_t complete_max_;
  uint64_t block_size_;
  std::vector<uint32_t> free_;
  uint32_t inflight_ = 0;
  bool stopping_ = false;
};

}  // namespace kdrift
