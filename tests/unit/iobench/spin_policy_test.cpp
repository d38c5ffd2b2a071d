#include "iobench/spin_policy.h"

#include <gtest/gtest.h>

#include <string>

namespace kdrift {
namespace {

// A clock that moves step_ns at every reading.
struct FakeClock {
  uint64_t now = 5000;
  uint64_t step_ns = 1000;
  int reads = 0;
  uint64_t operator()() {
    ++reads;
    now += step_ns;
    return now;
  }
};

TEST(SpinPolicy, SpinsUntilTheBudgetThenLeavesTheWaitToASleep) {
  SpinPolicy policy;
  FakeClock clock;
  int polls = 0;
  const int found =
      policy.spin([] { return false; }, [&] { return ++polls, 0; }, [&] { return clock(); });
  EXPECT_EQ(found, 0);
  // give_up = first reading + 10 us; the readings 1..9 us after it are inside the budget.
  EXPECT_EQ(polls, 9);
  EXPECT_EQ(clock.reads, 11);
  EXPECT_EQ(clock.now, 5000u + 11 * 1000u);
}

TEST(SpinPolicy, StopsPollingAsSoonAsItFinds) {
  SpinPolicy policy;
  FakeClock clock;
  int completions = 0;
  const int found = policy.spin([&] { return completions >= 3; }, [&] { return ++completions, 1; },
                                [&] { return clock(); });
  EXPECT_EQ(found, 1);
  EXPECT_EQ(completions, 3);
  // Already there: no poll at all.
  int polls = 0;
  EXPECT_EQ(policy.spin([] { return true; }, [&] { return ++polls; }, [&] { return clock(); }), 1);
  EXPECT_EQ(polls, 0);
}

TEST(SpinPolicy, AnErrorEndsTheSpinAndIsNotCountedAgainstIt) {
  SpinPolicy policy;
  FakeClock clock;
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(policy.spin([] { return false; }, [] { return -4; }, [&] { return clock(); }), -4);
  }
  EXPECT_TRUE(policy.should_spin());  // 64 errors, no misses recorded: still spinning
}

// The spins of a window of 32 that found: which waits spin afterwards, as a string of s and -.
std::string after_window(int hits) {
  SpinPolicy policy;
  for (int i = 0; i < 32; ++i)
    policy.record(i < hits);
  std::string out;
  for (int i = 0; i < 34; ++i)
    out += policy.should_spin() ? 's' : '-';
  return out;
}

TEST(SpinPolicy, AWindowThatMostlyMissedSpinsOnceInSixteen) {
  EXPECT_EQ(after_window(32), std::string(34, 's'));
  EXPECT_EQ(after_window(16), std::string(34, 's'));  // half is enough
  EXPECT_EQ(after_window(15), "---------------s---------------s--");
  EXPECT_EQ(after_window(0), "---------------s---------------s--");
}

TEST(SpinPolicy, TheNextWindowDecidesAgain) {
  SpinPolicy policy;
  FakeClock clock;
  for (int i = 0; i < 32; ++i)
    (void)policy.spin([] { return false; }, [] { return 0; }, [&] { return clock(); });
  EXPECT_FALSE(policy.should_spin());
  for (int i = 0; i < 31; ++i)
    policy.record(true);
  EXPECT_FALSE(policy.should_spin());  // the window is not over yet
  policy.record(false);                // 31 of 32 found
  EXPECT_TRUE(policy.should_spin());
}

}  // namespace
}  // namespace kdrift
