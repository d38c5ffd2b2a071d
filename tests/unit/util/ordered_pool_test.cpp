#include "util/ordered_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace kdrift {
namespace {

// Items that finish out of order: the later ones of each handful are quicker.
void uneven_work(std::size_t item) {
  std::this_thread::sleep_for(std::chrono::microseconds(200 * (7 - item % 7)));
}

TEST(OrderedPool, ItemsAreTakenInOrderWhateverTheThreadsFinishFirst) {
  for (const std::size_t threads : {1u, 2u, 5u}) {
    std::vector<std::size_t> taken;
    make_in_order(
        60, threads, 2 * threads,
        [](std::size_t item) {
          uneven_work(item);
          return std::to_string(item * item);
        },
        [&](std::size_t item, std::string made) {
          EXPECT_EQ(made, std::to_string(item * item));
          taken.push_back(item);
        });
    ASSERT_EQ(taken.size(), 60u) << threads << " threads";
    EXPECT_TRUE(std::is_sorted(taken.begin(), taken.end())) << threads << " threads";
  }
}

TEST(OrderedPool, NoMoreThanTheWindowIsMadeAndNotTakenAtOnce) {
  constexpr std::size_t kWindow = 4;
  std::atomic<std::size_t> made_not_taken = 0;
  std::atomic<std::size_t> most = 0;
  make_in_order(
      200, 3, kWindow,
      [&](std::size_t item) {
        const std::size_t now = ++made_not_taken;
        std::size_t seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        uneven_work(item);
        return item;
      },
      [&](std::size_t, std::size_t) {
        --made_not_taken;
        // A slow taker: the threads wait for the window rather than run ahead.
        std::this_thread::sleep_for(std::chrono::microseconds(300));
      });
  // The counter drops when take starts: the item on its way there still counts.
  EXPECT_LE(most.load(), kWindow + 1);
  EXPECT_GE(most.load(), 2u) << "the threads did work side by side";
}

TEST(OrderedPool, NothingToMakeCallsNothing) {
  bool called = false;
  make_in_order(
      0, 4, 8, [&](std::size_t) { return called = true; },
      [&](std::size_t, bool) { called = true; });
  EXPECT_FALSE(called);
}

TEST(OrderedPool, AnExceptionFromMakeReachesTheCallerAtItsItem) {
  std::vector<std::size_t> taken;
  EXPECT_THROW(make_in_order(
                   50, 3, 6,
                   [](std::size_t item) {
                     if (item == 17) throw std::runtime_error("item 17");
                     return item;
                   },
                   [&](std::size_t item, std::size_t) { taken.push_back(item); }),
               std::runtime_error);
  ASSERT_EQ(taken.size(), 17u) << "every item before it was taken, none after";
  EXPECT_EQ(taken.back(), 16u);
}

TEST(OrderedPool, AnExceptionFromTakeStopsTheThreads) {
  std::atomic<std::size_t> made = 0;
  EXPECT_THROW(make_in_order(
                   100000, 2, 4,
                   [&](std::size_t item) {
                     ++made;
                     return item;
                   },
                   [](std::size_t item, std::size_t) {
                     if (item == 3) throw std::runtime_error("stop");
                   }),
               std::runtime_error);
  EXPECT_LE(made.load(), 4u + 4u) << "at most the window ahead of the item that threw";
}

}  // namespace
}  // namespace kdrift
