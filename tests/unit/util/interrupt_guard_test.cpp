#include "util/interrupt_guard.h"

#include <gtest/gtest.h>

#include <csignal>

namespace kdrift {
namespace {

bool handled_by_default(int signal) {
  struct sigaction current {};
  (void)sigaction(signal, nullptr, &current);
  return current.sa_handler == SIG_DFL;
}

TEST(InterruptGuard, ASignalRaisesTheFlagInsteadOfEndingTheProcess) {
  ASSERT_TRUE(handled_by_default(SIGTERM));
  {
    const InterruptGuard guard;
    EXPECT_EQ(InterruptGuard::received(), 0);
    ASSERT_EQ(std::raise(SIGTERM), 0);
    EXPECT_EQ(InterruptGuard::received(), SIGTERM);
    ASSERT_EQ(std::raise(SIGHUP), 0);
    EXPECT_EQ(InterruptGuard::received(), SIGHUP);
  }
  // The dispositions in force before come back, and a new guard starts clear.
  EXPECT_TRUE(handled_by_default(SIGTERM));
  EXPECT_TRUE(handled_by_default(SIGINT));
  EXPECT_TRUE(handled_by_default(SIGHUP));
  const InterruptGuard guard;
  EXPECT_EQ(InterruptGuard::received(), 0);
}

}  // namespace
}  // namespace kdrift
