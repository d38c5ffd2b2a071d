// libaio engine: Linux native AIO on an O_DIRECT descriptor, io_submit in batches and, once the
// queue is full, io_getevents for at least batch_complete_min, as fio's libaio engine with
// userspace_reap off.

#include <libaio.h>

#include <vector>

#include "probe/engine.h"
#include "probe/slot_queue.h"
#include "probe/spin_policy.h"

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
    uint64_t prepared_ns = 0;
    uint64_t submitted_ns = 0;
    uint64_t offset = 0;
    bool write = false;
  };

  int reap(long wait, long most);

  ProbeJob job_;
  int fd_;
  BufferPool& buffers_;
  io_context_t context_ = nullptr;
  std::vector<Slot> slots_;
  std::vector<io_event> events_;
  SpinPolicy spin_;
};

// Waits for at least `wait` events into events_; spinning, it polls without sleeping first.
// Events already taken are returned even if a later call fails, so no slot is lost.
int LibaioEngine::reap(long wait, long most) {
  long found = 0;
  if (job_.completion_wait == CompletionWait::kSpin && spin_.should_spin()) {
    timespec no_wait{};
    const uint64_t give_up = monotonic_ns() + SpinPolicy::kBudgetNs;
    while (found < wait && monotonic_ns() < give_up) {
      const int result = io_getevents(context_, 0, most - found, events_.data() + found, &no_wait);
      if (result < 0) return found > 0 ? static_cast<int>(found) : result;
      found += result;
    }
    spin_.record(found >= wait);
    if (found >= wait) return static_cast<int>(found);
  }
  const int result =
      io_getevents(context_, wait - found, most - found, events_.data() + found, nullptr);
  if (result < 0) return found > 0 ? static_cast<int>(found) : result;
  return static_cast<int>(found + result);
}

std::optional<IoFailure> LibaioEngine::run(IoPattern& pattern, Recorder& recorder) {
  SlotQueue queue(job_);
  std::vector<iocb*> controls;
  std::vector<uint32_t> prepared;
  controls.reserve(job_.iodepth);
  prepared.reserve(job_.iodepth);
  const long reap_max = job_.batch_complete_max == 0
                            ? static_cast<long>(job_.iodepth)
                            : static_cast<long>(std::min(job_.batch_complete_max, job_.iodepth));
  std::optional<IoFailure> failure;
  uint64_t now = monotonic_ns();
  while (queue.next_round(recorder, now)) {
    controls.clear();
    prepared.clear();
    for (size_t count = queue.ready(); count > 0; --count) {
      const uint32_t slot = queue.take();
      const IoTarget io = pattern.next();
      Slot& entry = slots_[slot];
      const auto offset = static_cast<long long>(io.offset);
      if (io.write) {
        io_prep_pwrite(&entry.control, fd_, buffers_.at(slot), job_.block_size, offset);
      } else {
        io_prep_pread(&entry.control, fd_, buffers_.at(slot), job_.block_size, offset);
      }
      entry.control.data = &entry;
      entry.prepared_ns = now;
      entry.offset = io.offset;
      entry.write = io.write;
      controls.push_back(&entry.control);
      prepared.push_back(slot);
    }
    size_t submitted = 0;
    while (submitted < controls.size()) {
      const int result = io_submit(context_, static_cast<long>(controls.size() - submitted),
                                   controls.data() + submitted);
      if (result == -EAGAIN || result == -EINTR) continue;
      if (result < 0) {
        failure = IoFailure{-result, "io_submit"};
        queue.stop();
        // What was not submitted goes back; what was submitted drains.
        for (size_t i = submitted; i < prepared.size(); ++i)
          queue.give_back(prepared[i]);
        prepared.resize(submitted);
        break;
      }
      submitted += static_cast<size_t>(result);
      recorder.submit_call(static_cast<uint64_t>(result));
    }
    if (!prepared.empty()) {
      now = monotonic_ns();
      for (const uint32_t slot : prepared)
        slots_[slot].submitted_ns = now;
    }
    if (queue.inflight() == 0) continue;
    const auto wait = static_cast<long>(queue.wait_count(prepared.size()));
    if (wait == 0) continue;  // completions are reaped once the queue is full, as fio does
    const int reaped = reap(wait, reap_max);
    if (reaped < 0) {
      if (reaped == -EINTR) continue;
      return IoFailure{-reaped, "io_getevents"};
    }
    if (prepared.empty()) recorder.reap_call();
    now = monotonic_ns();
    queue.check_window(recorder, now);
    for (int i = 0; i < reaped; ++i) {
      const io_event& event = events_[static_cast<size_t>(i)];
      const Slot& entry = *static_cast<const Slot*>(event.data);
      const auto slot = static_cast<uint32_t>(&entry - slots_.data());
      const auto result = static_cast<long>(event.res);
      if (result == static_cast<long>(job_.block_size)) {
        recorder.completed(entry.write, entry.prepared_ns, entry.submitted_ns, now);
      } else if (!failure) {
        failure = transfer_failure(entry.write, entry.offset, result);
        queue.stop();
      }
      queue.give_back(slot);
    }
  }
  return failure;
}

}  // namespace

Result<std::unique_ptr<Engine>> make_libaio_engine(const ProbeJob& job, int fd,
                                                   BufferPool& buffers) {
  auto engine = std::make_unique<LibaioEngine>(job, fd, buffers);
  if (auto status = engine->init(); !status) return status.error();
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace kdrift
