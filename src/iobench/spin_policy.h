#pragma once
// Whether a queued engine should look for completions for a while before sleeping
// (completion_wait = "spin"), and the look itself. A sleeping submitter must be woken by
// whoever completes the I/O (an io-wq worker, an interrupt), and on a small VM that wakeup costs
// more than a zram read. The spin goes on only while it usually finds what it waits for, judged
// over windows of 32 spins; while it does not, one wait in 16 still spins, to notice when it
// would pay again. So a device slower than the budget (a disk at depth 1) costs almost no CPU
// for it.

#include <cstdint>

namespace kdrift {

class SpinPolicy {
 public:
  static constexpr uint64_t kBudgetNs = 10000;

  bool should_spin() { return enabled_ || ++skipped_ % 16 == 0; }
  void record(bool found) {
    hits_ += found ? 1 : 0;
    if (++tries_ < 32) return;
    enabled_ = hits_ * 2 >= tries_;
    hits_ = 0;
    tries_ = 0;
  }

  // Polls without sleeping until done() or kBudgetNs have passed on clock() (monotonic_ns on
  // the hot path). Returns the first negative poll() result (an -errno, not recorded), else 1
  // when done() held and 0 when the budget ran out and the caller should sleep; either is
  // recorded.
  template <typename Done, typename Poll, typename Clock>
  int spin(Done done, Poll poll, Clock clock) {
    const uint64_t give_up = clock() + kBudgetNs;
    while (!done() && clock() < give_up) {
      const int result = poll();
      if (result < 0) return result;
    }
    const bool found = done();
    record(found);
    return found ? 1 : 0;
  }

 private:
  bool enabled_ = true;
  uint32_t skipped_ = 0;
  uint32_t hits_ = 0;
  uint32_t tries_ = 0;
};

}  // namespace kdrift
