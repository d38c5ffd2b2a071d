#include "iobench/ring_reap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>

namespace kdrift {
namespace {

// A completion queue driven by a script: what the ring holds before each look, and what each
// wait answers. Records every call as "take N:got" or "wait N".
struct FakeRing {
  uint32_t ready = 0;
  std::deque<uint32_t> arrive_on_wait;  // completions that land during each wait
  std::deque<int> wait_results;         // each wait's return (0 when the script runs out)
  std::string calls;

  uint32_t take(uint32_t limit) {
    const uint32_t got = std::min(limit, ready);
    ready -= got;
    calls += "take " + std::to_string(limit) + ":" + std::to_string(got) + ", ";
    return got;
  }
  int wait(uint32_t count) {
    calls += "wait " + std::to_string(count) + ", ";
    if (!arrive_on_wait.empty()) {
      ready += arrive_on_wait.front();
      arrive_on_wait.pop_front();
    }
    if (wait_results.empty()) return 0;
    const int result = wait_results.front();
    wait_results.pop_front();
    return result;
  }
  int reap(uint32_t least, uint32_t most) {
    return reap_completions(
        least, most, [&](uint32_t limit) { return take(limit); },
        [&](uint32_t count) { return wait(count); });
  }
};

// fio's default (complete_min = max = 1): a completion already in the ring is taken without
// entering the kernel, and only one, however many are there.
TEST(RingReap, WhatTheRingHoldsIsTakenWithoutAWait) {
  FakeRing ring;
  ring.ready = 3;
  EXPECT_EQ(ring.reap(1, 1), 1);
  EXPECT_EQ(ring.calls, "take 1:1, ");
  EXPECT_EQ(ring.ready, 2u);
}

TEST(RingReap, AnEmptyRingWaitsForWhatIsMissingThenLooksAgain) {
  FakeRing ring;
  ring.arrive_on_wait = {1};
  EXPECT_EQ(ring.reap(1, 1), 1);
  EXPECT_EQ(ring.calls, "take 1:0, wait 1, take 1:1, ");
}

// complete_min 4, max 8: two are there, the wait is for the two missing, and the look after it
// takes whatever came, up to what is left of the eight.
TEST(RingReap, AWindowWaitsOnlyForTheRestAndTakesUpToTheMost) {
  FakeRing ring;
  ring.ready = 2;
  ring.arrive_on_wait = {5};
  EXPECT_EQ(ring.reap(4, 8), 7);
  EXPECT_EQ(ring.calls, "take 8:2, wait 2, take 6:5, ");
}

// A wait that returns early (a signal, or fewer than asked) is entered again for the rest.
TEST(RingReap, AWaitCutShortIsEnteredAgain) {
  FakeRing ring;
  ring.arrive_on_wait = {0, 1, 1};
  ring.wait_results = {-EINTR, 0, -EAGAIN};
  EXPECT_EQ(ring.reap(2, 2), 2);
  EXPECT_EQ(ring.calls, "take 2:0, wait 2, take 2:0, wait 2, take 2:1, wait 1, take 1:1, ");
}

TEST(RingReap, AnErrorOfTheWaitEndsTheReap) {
  FakeRing ring;
  ring.wait_results = {-EBADF};
  EXPECT_EQ(ring.reap(1, 1), -EBADF);
  EXPECT_EQ(ring.calls, "take 1:0, wait 1, ");
}

// Nothing to wait for: one look, whatever it finds.
TEST(RingReap, WaitingForNoneOnlyLooks) {
  FakeRing ring;
  EXPECT_EQ(ring.reap(0, 4), 0);
  EXPECT_EQ(ring.calls, "take 4:0, ");
}

}  // namespace
}  // namespace kdrift
