// What the block programs still hold when tracing stops is settled into completions they missed
// and requests still in flight, by the time before which the device said it had completed
// everything.

#include "trace/held_requests.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

kdrift_request_start issued(uint64_t at_ns, kdrift_dir direction, unsigned bytes) {
  kdrift_request_start start{};
  start.inserted_ns = at_ns > 10 ? at_ns - 10 : 0;
  start.issued_ns = at_ns;
  start.issued_bytes = bytes;
  start.direction = direction;
  return start;
}

TEST(HeldRequests, IssuedBeforeTheDeviceWasIdleCompletedUnseen) {
  const auto held = settle_held_requests(
      {issued(100, KDRIFT_DIR_READ, 4096), issued(200, KDRIFT_DIR_WRITE, 65536),
       issued(300, KDRIFT_DIR_WRITE, 4096)},
      1000);
  EXPECT_EQ(held.completed[KDRIFT_DIR_READ], 1u);
  EXPECT_EQ(held.completed_bytes[KDRIFT_DIR_READ], 4096u);
  EXPECT_EQ(held.completed[KDRIFT_DIR_WRITE], 2u);
  EXPECT_EQ(held.completed_bytes[KDRIFT_DIR_WRITE], 65536u + 4096u);
  EXPECT_EQ(held.in_flight, 0u);
}

// Issued after the idle read, or with no idle read at all: nothing says it has completed.
TEST(HeldRequests, WithoutAnIdleDeviceBeforeTheIssueTheyStayInFlight) {
  const std::vector<kdrift_request_start> held = {issued(100, KDRIFT_DIR_READ, 4096),
                                                  issued(2000, KDRIFT_DIR_READ, 4096)};
  const auto after_idle = settle_held_requests(held, 1000);
  EXPECT_EQ(after_idle.completed[KDRIFT_DIR_READ], 1u);
  EXPECT_EQ(after_idle.in_flight, 1u);
  const auto unknown = settle_held_requests(held, std::nullopt);
  EXPECT_EQ(unknown.completed[KDRIFT_DIR_READ], 0u);
  EXPECT_EQ(unknown.in_flight, 2u);
}

// A requeued request is out of the device's in-flight count while it waits for its next issue;
// a request only inserted was never issued, so it is neither completed nor in flight.
TEST(HeldRequests, RequeuedWaitsAndInsertedIsNeither) {
  auto requeued = issued(100, KDRIFT_DIR_WRITE, 4096);
  requeued.requeued = 1;
  kdrift_request_start inserted{};
  inserted.inserted_ns = 50;
  const auto held = settle_held_requests({requeued, inserted}, 1000);
  EXPECT_EQ(held.completed[KDRIFT_DIR_WRITE], 0u);
  EXPECT_EQ(held.in_flight, 1u);
}

}  // namespace
}  // namespace kdrift
