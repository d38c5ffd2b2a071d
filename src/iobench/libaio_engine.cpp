// libaio engine: Linux native AIO on an O_DIRECT descriptor, io_submit in batches and, once the
// queue is full, io_getevents for at least batch_complete_min, as fio's libaio engine with
// userspace_reap off.

#include <libaio.h>

#include <vector>

#include "iobench/engine.h"
#include "iobench/slot_queue.h"
#include "iobench/spin_policy.h"

namespace kdrift {
namespace {

class LibaioEngine final : public Engine {
 public:
  LibaioEngine(const ProbeJob& job, int fd, BufferPool& buffers)
      : job_(job), fd_(fd), buffers_(buffers), slots_(job.iodepth), events_(job.iodepth) {}
  LibaioEngine(const LibaioEngine&) = delete;
  LibaioEngine& operator=(const LibaioEngine&) = delete;
  ~LibaioEngine() override {
    if (context_ != nullptr) io_destroy(context_);
  }

  Status init() {
    const int result = io_setup(static_cast<int>(job_.iodepth), &context_);
    if (result < 0) {
      context_ = nullptr;
      return make_error(-result, "io_setup (fs.aio-max-nr may be exhausted)");
    }
    return ok_status();
  }
  std::optional<IoFailure> run(IoPattern& pattern, Recorder& recorder) override;
  Json setup() const override { return {{"context_events", job_.iodepth}}; }

 private:
  struct Slot {
    iocb control{};
    SlotIo io;
  };

  // What one round prepares: the controls to submit and their slots, in the same order.
  struct Round {
    std::vector<iocb*> controls;
    std::vector<uint32_t> slots;
  };

  void prepare(SlotQueue& queue, IoPattern& pattern, uint64_t now, Round& round);
  std::optional<IoFailure> submit(SlotQueue& queue, Recorder& recorder, Round& round);
  int reap(uint32_t least, uint32_t most);
  void complete(int reaped, uint64_t now, SlotQueue& queue, Recorder& recorder,
                std::optional<IoFailure>& failure);

  ProbeJob job_;
  int fd_;
  BufferPool& buffers_;
  io_context_t context_ = nullptr;
  std::vector<Slot> slots_;
  std::vector<io_event> events_;
  SpinPolicy spin_;
};

void LibaioEngine::prepare(SlotQueue& queue, IoPattern& pattern, uint64_t now, Round& round) {
  round.controls.clear();
  round.slots.clear();
  for (size_t count = queue.ready(); count > 0; --count) {
    const uint32_t slot = queue.take();
    const IoTarget io = pattern.next();
    Slot& entry = slots_[slot];
    const auto offset = static_cast<long long>(io.offset);
    char* buffer = buffers_.for_io(slot, io, now);
    if (io.write) {
      io_prep_pwrite(&entry.control, fd_, buffer, job_.block_size, offset);
    } else {
      io_prep_pread(&entry.control, fd_, buffer, job_.block_size, offset);
    }
    entry.control.data = &entry;
    entry.io = {now, 0, io.offset, io.write};
    round.controls.push_back(&entry.control);
    round.slots.push_back(slot);
  }
}

// io_submit until the round is in, or the first error: what was not submitted then goes back
// to the queue (round.slots keeps what was), and the queue stops so that the rest drains.
std::optional<IoFailure> LibaioEngine::submit(SlotQueue& queue, Recorder& recorder, Round& round) {
  size_t submitted = 0;
  while (submitted < round.controls.size()) {
    const int result = io_submit(context_, static_cast<long>(round.controls.size() - submitted),
                                 round.controls.data() + submitted);
    if (result == -EAGAIN || result == -EINTR) continue;
    if (result < 0) {
      queue.stop();
      for (size_t i = submitted; i < round.slots.size(); ++i)
        queue.give_back(round.slots[i]);
      round.slots.resize(submitted);
      return IoFailure{-result, "io_submit"};
    }
    submitted += static_cast<size_t>(result);
    recorder.submit_call(static_cast<uint64_t>(result));
  }
  return std::nullopt;
}

// Waits for at least `least` events into events_, taking up to `most`; spinning, it polls
// without sleeping first. Events already taken are returned even if a later call fails, so no
// slot is lost.
int LibaioEngine::reap(uint32_t least, uint32_t most) {
  const auto wait = static_cast<long>(least);
  const auto limit = static_cast<long>(most);
  long found = 0;
  if (job_.completion_wait == CompletionWait::kSpin && spin_.should_spin()) {
    timespec no_wait{};
    const int spun = spin_.spin([&] { return found >= wait; },
                                [&] {
                                  const int result = io_getevents(context_, 0, limit - found,
                                                                  events_.data() + found, &no_wait);
                                  if (result > 0) found += result;
                                  return result;
                                },
                                monotonic_ns);
    if (spun < 0) return found > 0 ? static_cast<int>(found) : spun;
    if (spun == 1) return static_cast<int>(found);
  }
  const int result =
      io_getevents(context_, wait - found, limit - found, events_.data() + found, nullptr);
  if (result < 0) return found > 0 ? static_cast<int>(found) : result;
  return static_cast<int>(found + result);
}

void LibaioEngine::complete(int reaped, uint64_t now, SlotQueue& queue, Recorder& recorder,
                            std::optional<IoFailure>& failure) {
  for (int i = 0; i < reaped; ++i) {
    const io_event& event = events_[static_cast<size_t>(i)];
    const Slot& entry = *static_cast<const Slot*>(event.data);
    const auto slot = static_cast<uint32_t>(&entry - slots_.data());
    queue.complete(slot, entry.io, static_cast<long>(event.res), now, recorder, failure);
  }
}

std::optional<IoFailure> LibaioEngine::run(IoPattern& pattern, Recorder& recorder) {
  SlotQueue queue(job_);
  Round round;
  round.controls.reserve(job_.iodepth);
  round.slots.reserve(job_.iodepth);
  std::optional<IoFailure> failure;
  uint64_t now = monotonic_ns();
  while (queue.next_round(recorder, now)) {
    prepare(queue, pattern, now, round);
    if (auto refused = submit(queue, recorder, round)) failure = refused;
    if (!round.slots.empty()) {
      now = monotonic_ns();
      for (const uint32_t slot : round.slots)
        slots_[slot].io.submitted_ns = now;
    }
    if (queue.inflight() == 0) continue;
    const uint32_t wait = queue.wait_count(round.slots.size());
    if (wait == 0) continue;  // completions are reaped once the queue is full, as fio does
    const int reaped = reap(wait, queue.reap_limit(wait));
    if (reaped < 0) {
      if (reaped == -EINTR) continue;
      return IoFailure{-reaped, "io_getevents"};
    }
    if (round.slots.empty()) recorder.reap_call();
    now = monotonic_ns();
    queue.check_window(recorder, now);
    complete(reaped, now, queue, recorder, failure);
  }
  return failure;
}

}  // namespace

Result<std::unique_ptr<Engine>> make_libaio_engine(const ProbeJob& job, int fd,
                                                   BufferPool& buffers) {
  return initialized_engine<LibaioEngine>(job, fd, buffers);
}

}  // namespace kdrift
