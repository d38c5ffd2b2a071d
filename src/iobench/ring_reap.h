#pragma once
// How the io_uring engine takes completions from its ring, as fio's io_uring engine does
// (fio_ioring_getevents): first what the completion queue already holds, read in user space,
// up to the most it may take; only while fewer than it must wait for were there does it enter
// the kernel, to sleep until the rest have completed, then it looks again. A completion found
// without a wait costs no system call, and a wait is never bounded by a timeout (a timed wait
// arms a timer and wakes for it).

#include <cerrno>
#include <cstdint>

namespace kdrift {

// A wait the kernel cut short, to be retried: a signal (EINTR; SA_RESTART does not restart
// io_uring_enter), or no memory for the moment (EAGAIN, EBUSY).
inline bool wait_cut_short(int result) {
  return result == -EINTR || result == -EAGAIN || result == -EBUSY;
}

// take(limit) hands up to limit completions from the queue to the job and returns how many it
// took (none when the queue is empty); wait(count) returns once count more have completed, 0 or
// -errno. Returns how many were taken, at least `least` and at most `most` (most >= least), or the
// first error of a wait that was not cut short.
template <typename Take, typename Wait>
int reap_completions(uint32_t least, uint32_t most, Take take, Wait wait) {
  uint32_t taken = 0;
  while (true) {
    taken += take(most - taken);
    if (taken >= least) return static_cast<int>(taken);
    const int waited = wait(least - taken);
    if (waited < 0 && !wait_cut_short(waited)) return waited;
  }
}

}  // namespace kdrift
