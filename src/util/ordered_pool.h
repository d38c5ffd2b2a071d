#pragma once
// Items made on a few threads and taken in order. kdrift fleet reads thousands of snapshots, each
// on its own (gunzip, parse, the facts), and folds them into one index in the order it was
// given, so the document does not depend on which thread finished first. At most a window of
// items is being made or waiting to be taken at any time, so what the results hold grows with
// the number of threads, never with the number of items.

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

namespace kdrift {

// The queue between the threads that make items and the one that takes them: one slot per item
// of the window, item i in slot i % window.
template <class T>
class OrderedWindow {
 public:
  // What a thread made of an item: its value, or the exception making it threw.
  using Outcome = std::variant<T, std::exception_ptr>;

  OrderedWindow(std::size_t count, std::size_t window) : count_(count), slots_(window) {}

  // The next item to make, once it fits in the window; none when every item is claimed or stop
  // is requested.
  std::optional<std::size_t> claim(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    const bool open = changed_.wait(
        lock, stop, [&] { return claimed_ == count_ || claimed_ < taken_ + slots_.size(); });
    if (!open || claimed_ == count_) return std::nullopt;
    return claimed_++;
  }

  void put(std::size_t item, Outcome outcome) {
    {
      const std::lock_guard lock(mutex_);
      slots_[item % slots_.size()] = std::move(outcome);
    }
    changed_.notify_all();
  }

  // The next item in order, once it is made; its slot is free for another item after this.
  Outcome take() {
    std::unique_lock lock(mutex_);
    auto& slot = slots_[taken_ % slots_.size()];
    changed_.wait(lock, [&] { return slot.has_value(); });
    Outcome outcome = std::move(*slot);
    slot.reset();
    ++taken_;
    lock.unlock();
    changed_.notify_all();
    return outcome;
  }

 private:
  const std::size_t count_;
  std::mutex mutex_;
  std::condition_variable_any changed_;
  std::vector<std::optional<Outcome>> slots_;
  std::size_t claimed_ = 0;  // items handed to a thread
  std::size_t taken_ = 0;    // items handed to the caller
};

// make(i) for every i in [0, count) on `threads` threads, and take(i, made) on the calling thread
// for i = 0, 1, 2, ... in order: the same calls, in the same order, whatever the number of
// threads (at least one). At most `window` items (at least one per thread) are being made or
// waiting to be taken at once. An exception make throws is rethrown in the calling thread when its
// item's turn comes; when take throws, the threads finish the items they are making and stop, and
// the exception goes on.
template <class Make, class Take>
void make_in_order(std::size_t count, std::size_t threads, std::size_t window, Make make,
                   Take take) {
  using T = decltype(make(std::size_t{0}));
  threads = std::max<std::size_t>(threads, 1);
  OrderedWindow<T> queue(count, std::max(window, threads));
  // Declared after the queue, so destroyed first: a jthread asks its worker to stop and joins it.
  std::vector<std::jthread> workers;
  for (std::size_t t = 0; t < threads && t < count; ++t) {
    workers.emplace_back([&](std::stop_token stop) {
      while (const auto item = queue.claim(stop)) {
        try {
          queue.put(*item, make(*item));
        } catch (...) {
          queue.put(*item, std::current_exception());
        }
      }
    });
  }
  for (std::size_t item = 0; item < count; ++item) {
    auto outcome = queue.take();
    if (auto* failure = std::get_if<std::exception_ptr>(&outcome)) std::rethrow_exception(*failure);
    take(item, std::move(std::get<T>(outcome)));
  }
}

}  // namespace kdrift
