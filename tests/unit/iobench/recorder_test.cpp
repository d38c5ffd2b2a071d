#include "iobench/recorder.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(Recorder, RampIsNotMeasuredAndWindowsAreWholeSeconds) {
  int starts = 0;
  Recorder recorder(0, kNanosecondsPerSecond, 3 * kNanosecondsPerSecond, 4096, [&] { ++starts; });
  EXPECT_FALSE(recorder.finished(0));
  EXPECT_FALSE(recorder.measuring());
  recorder.completed(false, 0, 10, 500);  // during the ramp
  EXPECT_FALSE(recorder.finished(kNanosecondsPerSecond));
  EXPECT_TRUE(recorder.measuring());
  EXPECT_EQ(starts, 1);
  for (uint64_t t = kNanosecondsPerSecond; t < 4 * kNanosecondsPerSecond;
       t += kNanosecondsPerSecond / 10) {
    EXPECT_FALSE(recorder.finished(t));
    recorder.completed((t / (kNanosecondsPerSecond / 10)) % 2 == 0, t - 300, t - 200, t);
  }
  EXPECT_TRUE(recorder.finished(4 * kNanosecondsPerSecond));
  recorder.completed(false, 4 * kNanosecondsPerSecond - 100, 4 * kNanosecondsPerSecond - 50,
                     4 * kNanosecondsPerSecond + 5);  // drained
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(recorder.read().ios + recorder.write().ios, 30u);
  EXPECT_EQ(recorder.all_completions(), 32u);
  EXPECT_EQ(recorder.per_second(), (std::vector<uint64_t>{10, 10, 10}));
  EXPECT_EQ(recorder.read().completion.min(), 200u);
  EXPECT_EQ(recorder.read().submission.max(), 100u);
  EXPECT_EQ(recorder.read().total.percentile(50), 300u);
  EXPECT_EQ(recorder.read().bytes, recorder.read().ios * 4096);
  EXPECT_EQ(recorder.measured_ns(), 3 * kNanosecondsPerSecond);
}

TEST(Recorder, LatencyPercentilesPerSecond) {
  Recorder recorder(0, 0, 3 * kNanosecondsPerSecond, 4096, nullptr);
  (void)recorder.finished(0);
  // Second 1: 100 I/Os at 10 us; second 2: none; second 3: 99 at 20 us and one at 1 ms.
  for (uint64_t i = 0; i < 100; ++i)
    recorder.completed(false, i * 1000, i * 1000, i * 1000 + 10000);
  (void)recorder.finished(kNanosecondsPerSecond + 1);
  (void)recorder.finished(2 * kNanosecondsPerSecond + 1);
  for (uint64_t i = 0; i < 100; ++i) {
    const uint64_t at = 2 * kNanosecondsPerSecond + 10 + i * 1000;
    recorder.completed(false, at, at, at + (i == 99 ? 1000000 : 20000));
  }
  EXPECT_TRUE(recorder.finished(3 * kNanosecondsPerSecond));
  const auto& seconds = recorder.per_second_latency();
  EXPECT_EQ(recorder.per_second(), (std::vector<uint64_t>{100, 0, 100}));
  ASSERT_EQ(seconds[0].size(), 2U) << "a second without completions has no latency";
  EXPECT_NEAR(seconds[0][0], 10000, 50);
  EXPECT_NEAR(seconds[0][1], 20000, 100);
  EXPECT_NEAR(seconds[1][1], 20000, 100);     // p99 of the third second
  EXPECT_NEAR(seconds[2][1], 1000000, 5000);  // p99.9: the slow one
}

TEST(Recorder, SubmitAndReapCalls) {
  Recorder recorder(0, 0, kNanosecondsPerSecond, 512, nullptr);
  recorder.submit_call(8);
  recorder.submit_call(4);
  recorder.reap_call();
  EXPECT_EQ(recorder.submit_calls(), 2u);
  EXPECT_EQ(recorder.submitted_ios(), 12u);
  EXPECT_EQ(recorder.reap_calls(), 1u);
}

}  // namespace
}  // namespace kdrift
