#include "iobench/slot_queue.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "iobench/recorder.h"

namespace kdrift {
namespace {

ProbeJob queued(uint32_t depth, uint32_t batch_submit, uint32_t complete_min) {
  ProbeJob job;
  job.engine = *EngineMode::parse("libaio");
  job.block_size = 4096;
  job.iodepth = depth;
  job.batch_submit = batch_submit;
  job.batch_complete_min = complete_min;
  job.batch_complete_max = complete_min;
  return job;
}

// Drives the queue as the engines do, completing the oldest I/Os first, and writes each round
// as "+<submitted>/<in flight after>" then "-<reaped>" when it waits.
class Driver {
 public:
  explicit Driver(const ProbeJob& job) : job_(job), queue_(job) {}

  std::string rounds(int count) {
    std::string out;
    for (int round = 0; round < count && queue_.next_round(recorder_, now_); ++round) {
      size_t prepared = 0;
      for (size_t ready = queue_.ready(); ready > 0; --ready, ++prepared) {
        inflight_.push_back(queue_.take());
      }
      out += "+" + std::to_string(prepared) + "/" + std::to_string(queue_.inflight());
      const uint32_t wait = queue_.wait_count(prepared);
      if (wait != 0) {
        for (uint32_t i = 0; i < wait; ++i) {
          queue_.complete(inflight_.front(), SlotIo{now_, now_, 0, false}, 4096, now_ + 1,
                          recorder_, failure_);
          inflight_.pop_front();
        }
        out += " -" + std::to_string(wait);
      }
      out += ", ";
      now_ += 1000;
    }
    return out;
  }
  SlotQueue& queue() { return queue_; }
  Recorder& recorder() { return recorder_; }
  std::optional<IoFailure>& failure() { return failure_; }
  std::deque<uint32_t>& inflight() { return inflight_; }
  void at(uint64_t now) { now_ = now; }

 private:
  ProbeJob job_;
  SlotQueue queue_;
  Recorder recorder_{0, 0, kNanosecondsPerSecond, 4096, nullptr};
  std::optional<IoFailure> failure_;
  std::deque<uint32_t> inflight_;
  uint64_t now_ = 0;
};

// fio's default discipline: one I/O submitted as each slot frees, no reap before the queue is
// full, then one completion reaped and its slot refilled at once, so the depth holds.
TEST(SlotQueue, DepthIsHeldAndReapingWaitsForAFullQueue) {
  Driver engine(queued(4, 1, 1));
  EXPECT_EQ(engine.rounds(7), "+1/1, +1/2, +1/3, +1/4 -1, +1/4 -1, +1/4 -1, +1/4 -1, ");
}

// batch_submit 4 of depth 8: nothing is prepared until four slots are free, so completions are
// reaped one by one (complete_min 1) until a whole batch can go.
TEST(SlotQueue, ABatchWaitsUntilThatManySlotsAreFree) {
  Driver engine(queued(8, 4, 1));
  EXPECT_EQ(engine.rounds(8),
            "+4/4, +4/8 -1, +0/7 -1, +0/6 -1, +0/5 -1, +4/8 -1, +0/7 -1, +0/6 -1, ");
}

// Depth 6, batch 4: once a batch is in, the two free slots cannot take another, so the queue
// counts as full and reaps instead of going round once more with nothing to submit.
TEST(SlotQueue, ABatchThatNoLongerFitsIsAFullQueue) {
  Driver engine(queued(6, 4, 1));
  EXPECT_EQ(engine.rounds(5), "+4/4 -1, +0/3 -1, +4/6 -1, +0/5 -1, +0/4 -1, ");
}

// batch_submit 0 fills every free slot; complete_min 3 waits for three completions once full.
TEST(SlotQueue, EveryFreeSlotAndCompletionWindows) {
  Driver engine(queued(6, 0, 3));
  EXPECT_EQ(engine.rounds(4), "+6/6 -3, +3/6 -3, +3/6 -3, +3/6 -3, ");
}

// A batch larger than the queue is the queue.
TEST(SlotQueue, ABatchIsAtMostTheDepth) {
  Driver engine(queued(2, 64, 1));
  EXPECT_EQ(engine.queue().ready(), 2u);
  EXPECT_EQ(engine.rounds(3), "+2/2 -1, +0/1 -1, +2/2 -1, ");
}

// Once stopped nothing more is prepared, what is in flight drains, and the run ends only when
// the queue is empty; the completion window shrinks to what is left.
TEST(SlotQueue, AStoppedQueueDrainsThenEnds) {
  SlotQueue queue(queued(4, 0, 4));
  Recorder recorder(0, 0, kNanosecondsPerSecond, 4096, nullptr);
  std::vector<uint32_t> slots;
  for (size_t ready = queue.ready(); ready > 0; --ready)
    slots.push_back(queue.take());
  EXPECT_EQ(slots, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(queue.wait_count(4), 4u);
  queue.stop();
  for (int i = 0; i < 3; ++i)
    queue.give_back(slots[static_cast<size_t>(i)]);
  EXPECT_EQ(queue.ready(), 0u);        // three free slots, but stopped
  EXPECT_EQ(queue.wait_count(0), 1u);  // one left: wait for it, not for four
  EXPECT_TRUE(queue.next_round(recorder, 0));
  queue.give_back(slots[3]);
  EXPECT_FALSE(queue.next_round(recorder, 0));
}

// As fio's td_io_getevents: a reap takes at most complete_max of the I/Os in flight (0: all of
// them), and never fewer than it waits for.
TEST(SlotQueue, AReapTakesAtMostCompleteMaxOfWhatIsInFlight) {
  ProbeJob job = queued(8, 0, 1);
  job.batch_complete_max = 0;
  SlotQueue all(job);
  for (int i = 0; i < 5; ++i)
    (void)all.take();
  EXPECT_EQ(all.reap_limit(1), 5u);
  job.batch_complete_max = 3;
  SlotQueue three(job);
  for (int i = 0; i < 5; ++i)
    (void)three.take();
  EXPECT_EQ(three.reap_limit(1), 3u);
  EXPECT_EQ(three.reap_limit(4), 4u);  // complete_min above complete_max wins
  (void)three.take();
  three.give_back(0);
  three.give_back(1);
  three.give_back(2);
  three.give_back(3);
  EXPECT_EQ(three.inflight(), 2u);
  EXPECT_EQ(three.reap_limit(1), 2u);  // only two left in flight
}

TEST(SlotQueue, TheRecordersWindowStopsSubmission) {
  Driver engine(queued(2, 1, 1));
  EXPECT_EQ(engine.rounds(2), "+1/1, +1/2 -1, ");
  engine.at(kNanosecondsPerSecond);
  EXPECT_EQ(engine.rounds(5), "+0/1 -1, ");
  EXPECT_TRUE(engine.recorder().finished(kNanosecondsPerSecond));
}

TEST(SlotQueue, TheFirstFailedTransferIsTheJobsAndStopsTheQueue) {
  SlotQueue queue(queued(4, 0, 1));
  Recorder recorder(0, 0, kNanosecondsPerSecond, 4096, nullptr);
  (void)recorder.finished(0);
  std::optional<IoFailure> failure;
  const uint32_t a = queue.take();
  const uint32_t b = queue.take();
  const uint32_t c = queue.take();
  queue.complete(a, SlotIo{0, 10, 0, false}, 4096, 100, recorder, failure);
  EXPECT_EQ(recorder.read().ios, 1u);
  EXPECT_FALSE(failure);
  queue.complete(b, SlotIo{0, 10, 8192, true}, -EIO, 100, recorder, failure);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->code, EIO);
  EXPECT_EQ(failure->what, transfer_failure(true, 8192, -EIO).what);
  EXPECT_EQ(queue.ready(), 0u);                                                // stopped
  queue.complete(c, SlotIo{0, 10, 4096, false}, 512, 100, recorder, failure);  // short
  EXPECT_EQ(failure->code, EIO);
  EXPECT_EQ(failure->what, transfer_failure(true, 8192, -EIO).what);  // the first one stays
  EXPECT_EQ(recorder.write().ios, 0u);
  EXPECT_EQ(queue.inflight(), 0u);
  EXPECT_FALSE(queue.next_round(recorder, 200));
}

}  // namespace
}  // namespace kdrift
