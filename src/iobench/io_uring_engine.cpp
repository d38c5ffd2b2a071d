// io_uring engine: one ring per job, user_data = slot index. It submits and reaps as fio's
// io_uring engine does: one io_uring_enter for what was prepared, then, once the queue is full,
// the completions already in the ring, and a second io_uring_enter that sleeps only when there
// were too few (ring_reap.h). The clock is read once after each io_uring_enter: that reading
// times the submission and every completion found before the next one.

#include <liburing.h>
#include <sys/uio.h>

#include <array>
#include <vector>

#include "iobench/engine.h"
#include "iobench/ring_reap.h"
#include "iobench/slot_queue.h"
#include "iobench/spin_policy.h"

namespace kdrift {
namespace {

struct FlagName {
  unsigned flag;
  const char* name;
};

constexpr std::array<FlagName, 7> kSetupFlags = {{
    {IORING_SETUP_IOPOLL, "IOPOLL"},
    {IORING_SETUP_SQPOLL, "SQPOLL"},
    {IORING_SETUP_SQ_AFF, "SQ_AFF"},
    {IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"},
    {IORING_SETUP_TASKRUN_FLAG, "TASKRUN_FLAG"},
    {IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"},
    {IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN"},
}};

Json flag_names(unsigned flags) {
  Json names = Json::array();
  for (const auto& [flag, name] : kSetupFlags) {
    if ((flags & flag) != 0) names.push_back(name);
  }
  return names;
}

// Tried in this order and dropped one by one while the kernel answers EINVAL: each saves
// interrupts or task-work wakeups, none changes what is measured.
constexpr std::array<unsigned, 3> kOptionalFlags = {
    IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_COOP_TASKRUN, IORING_SETUP_SINGLE_ISSUER};

class IoUringEngine final : public Engine {
 public:
  IoUringEngine(const ProbeJob& job, int fd, BufferPool& buffers)
      : job_(job), fd_(fd), buffers_(buffers), slots_(job.iodepth), cqes_(job.iodepth) {}
  IoUringEngine(const IoUringEngine&) = delete;
  IoUringEngine& operator=(const IoUringEngine&) = delete;
  ~IoUringEngine() override {
    if (ring_ready_) io_uring_queue_exit(&ring_);
  }

  Status init();
  std::optional<IoFailure> run(IoPattern& pattern, Recorder& recorder) override;
  Json setup() const override;

 private:
  io_uring_sqe* next_sqe();
  bool prepare(uint32_t slot, const IoTarget& io, uint64_t now);
  int submit();
  int wait_for(uint32_t count);
  int poll_cq(uint32_t count);
  uint32_t take(uint32_t limit, uint64_t now, SlotQueue& queue, Recorder& recorder,
                std::optional<IoFailure>& failure);

  ProbeJob job_;
  int fd_;
  BufferPool& buffers_;
  io_uring ring_{};
  bool ring_ready_ = false;
  bool ring_fd_registered_ = false;
  unsigned requested_flags_ = 0;
  unsigned accepted_flags_ = 0;
  unsigned sq_entries_ = 0;
  unsigned cq_entries_ = 0;
  unsigned features_ = 0;
  std::vector<SlotIo> slots_;
  std::vector<io_uring_cqe*> cqes_;  // one reap's completions, at most one per slot
  SpinPolicy spin_;
};

Status IoUringEngine::init() {
  unsigned base = 0;
  if (job_.engine.iopoll) base |= IORING_SETUP_IOPOLL;
  if (job_.engine.sqpoll) base |= IORING_SETUP_SQPOLL;
  if (job_.engine.sqpoll && job_.sqpoll_cpu) base |= IORING_SETUP_SQ_AFF;
  unsigned optional = 0;
  for (const unsigned flag : kOptionalFlags)
    optional |= flag;
  requested_flags_ = base | optional;
  int result = -EINVAL;
  size_t dropped = 0;
  while (true) {
    io_uring_params params{};
    params.flags = base | optional;
    if (job_.sqpoll_cpu) params.sq_thread_cpu = static_cast<unsigned>(*job_.sqpoll_cpu);
    result = io_uring_queue_init_params(job_.iodepth, &ring_, &params);
    if (result == 0) {
      accepted_flags_ = params.flags;
      sq_entries_ = params.sq_entries;
      cq_entries_ = params.cq_entries;
      features_ = params.features;
      break;
    }
    if (result != -EINVAL || dropped == kOptionalFlags.size()) {
      return make_error(-result, "io_uring_queue_init with " + flag_names(base | optional).dump());
    }
    optional &= ~kOptionalFlags[dropped++];
  }
  ring_ready_ = true;
  // Saves the fd table lookup on every io_uring_enter (5.18+); older kernels just do without.
  ring_fd_registered_ = io_uring_register_ring_fd(&ring_) == 1;
  if (job_.engine.fixedbufs) {
    std::vector<iovec> vectors(buffers_.count());
    for (uint32_t slot = 0; slot < buffers_.count(); ++slot) {
      vectors[slot] = {buffers_.at(slot), static_cast<size_t>(buffers_.size())};
    }
    result =
        io_uring_register_buffers(&ring_, vectors.data(), static_cast<unsigned>(vectors.size()));
    if (result < 0) return make_error(-result, "io_uring_register_buffers");
  }
  if (job_.engine.regfiles) {
    result = io_uring_register_files(&ring_, &fd_, 1);
    if (result < 0) return make_error(-result, "io_uring_register_files");
  }
  return ok_status();
}

// The ring has a slot for every I/O in flight, yet the SQ can still be full: an SQE the kernel
// left unconsumed (an io_uring_enter that returned early, a partial submission) keeps its place,
// and an SQPOLL thread gives entries back only after issuing its batch, possibly after their
// completions were seen. Flush or wait for space then; null only if the kernel takes none.
io_uring_sqe* IoUringEngine::next_sqe() {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (io_uring_sqe* sqe = io_uring_get_sqe(&ring_)) return sqe;
    if (job_.engine.sqpoll) {
      io_uring_sqring_wait(&ring_);
    } else {
      io_uring_submit(&ring_);
    }
  }
  return io_uring_get_sqe(&ring_);
}

bool IoUringEngine::prepare(uint32_t slot, const IoTarget& io, uint64_t now) {
  io_uring_sqe* sqe = next_sqe();
  if (sqe == nullptr) return false;
  const int fd = job_.engine.regfiles ? 0 : fd_;
  char* buffer = buffers_.for_io(slot, io, now);
  const auto length = static_cast<unsigned>(job_.block_size);
  if (job_.engine.fixedbufs) {
    if (io.write) {
      io_uring_prep_write_fixed(sqe, fd, buffer, length, io.offset, static_cast<int>(slot));
    } else {
      io_uring_prep_read_fixed(sqe, fd, buffer, length, io.offset, static_cast<int>(slot));
    }
  } else if (io.write) {
    io_uring_prep_write(sqe, fd, buffer, length, io.offset);
  } else {
    io_uring_prep_read(sqe, fd, buffer, length, io.offset);
  }
  if (job_.engine.regfiles) sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, slot);
  return true;
}

// One io_uring_enter for what is prepared (fio's fio_ioring_commit), which also asks for events:
// with DEFER_TASKRUN completions are posted only while the submitter is in the kernel with
// GETEVENTS, and this call posts those that completed meanwhile. Under --like-fio an SQPOLL ring
// enters only when its thread asks to be woken, as fio's does.
int IoUringEngine::submit() {
  if (job_.engine.sqpoll && job_.like_fio) return io_uring_submit(&ring_);
  return io_uring_submit_and_get_events(&ring_);
}

// Sleeps in the kernel until `count` more completions are in the ring (none is there when it is
// called), spinning first when the job asks to. Waiting in a call of its own after the submit
// lets a completion that arrived meanwhile be found without sleeping (the call posts it first):
// on zram, where io-wq runs every read, one call for both slept on nearly every I/O (0.59-0.62 of
// fio's IOPS at depth 16, 88-164k context switches in 3.5 s against 42-57k split).
int IoUringEngine::wait_for(uint32_t count) {
  if (job_.engine.sqpoll && job_.like_fio) return poll_cq(count);
  const bool spin = job_.completion_wait == CompletionWait::kSpin && !job_.engine.iopoll;
  if (spin && spin_.should_spin()) {
    const int found = spin_.spin([&] { return io_uring_cq_ready(&ring_) >= count; },
                                 [&] { return io_uring_get_events(&ring_); }, monotonic_ns);
    if (found != 0) return found < 0 ? found : 0;
  }
  io_uring_cqe* cqe = nullptr;
  return io_uring_wait_cqe_nr(&ring_, &cqe, count);
}

// fio's way with an SQPOLL ring (fio 3.33, engines/io_uring.c: fio_ioring_commit enters the
// kernel only when the SQ thread asks for a wakeup, fio_ioring_getevents never does): the
// submitter spins on the CQ ring in user space. Where the SQ thread and the submitter share a
// CPU, the spin takes the time the SQ thread needs (3.7k against 18.6k IOPS in the 2-vCPU lab
// guest; docs/benchmarks.md, "Probe against fio in the polled modes"), so kdrift sleeps in the
// kernel unless asked to be fio.
int IoUringEngine::poll_cq(uint32_t count) {
  while (io_uring_cq_ready(&ring_) < count) {
    if (io_uring_cq_has_overflow(&ring_)) {
      const int flushed = io_uring_get_events(&ring_);
      if (flushed < 0) return flushed;
    }
  }
  return 0;
}

// Hands up to `limit` completions in the ring to the queue, seen at `now`; returns how many.
uint32_t IoUringEngine::take(uint32_t limit, uint64_t now, SlotQueue& queue, Recorder& recorder,
                             std::optional<IoFailure>& failure) {
  const unsigned found = io_uring_peek_batch_cqe(&ring_, cqes_.data(), limit);
  for (unsigned i = 0; i < found; ++i) {
    const auto slot = static_cast<uint32_t>(io_uring_cqe_get_data64(cqes_[i]));
    queue.complete(slot, slots_[slot], cqes_[i]->res, now, recorder, failure);
  }
  io_uring_cq_advance(&ring_, found);
  return found;
}

std::optional<IoFailure> IoUringEngine::run(IoPattern& pattern, Recorder& recorder) {
  SlotQueue queue(job_);
  std::vector<uint32_t> prepared;
  prepared.reserve(job_.iodepth);
  std::optional<IoFailure> failure;
  uint64_t now = monotonic_ns();
  while (queue.next_round(recorder, now)) {
    prepared.clear();
    for (size_t count = queue.ready(); count > 0; --count) {
      const uint32_t slot = queue.take();
      const IoTarget io = pattern.next();
      slots_[slot] = {now, 0, io.offset, io.write};
      if (!prepare(slot, io, now))
        return IoFailure{EBUSY, "io_uring_get_sqe: submission queue full"};
      prepared.push_back(slot);
    }
    const uint32_t wait = queue.wait_count(prepared.size());
    if (prepared.empty()) {
      recorder.reap_call();
    } else {
      recorder.submit_call(prepared.size());
    }
    bool submitted_all = true;
    // As fio's commit: no io_uring_enter without something to submit. Entries a submit the
    // kernel cut short left in the ring go with the next one.
    if (io_uring_sq_ready(&ring_) != 0) {
      const int submitted = submit();
      if (submitted < 0 && !wait_cut_short(submitted))
        return IoFailure{-submitted, "io_uring_enter"};
      submitted_all = submitted >= 0;
      now = monotonic_ns();
      // Submission ended when the submit call returned, before any wait (slat as fio's).
      for (const uint32_t slot : prepared)
        slots_[slot].submitted_ns = now;
      queue.check_window(recorder, now);
    }
    if (wait == 0) continue;  // completions are reaped once the queue is full, as fio does
    // After a submit cut short nothing may be in flight to end a wait: take only what is there.
    const int reaped = reap_completions(
        submitted_all ? wait : 0, queue.reap_limit(wait),
        [&](uint32_t limit) { return take(limit, now, queue, recorder, failure); },
        [&](uint32_t count) {
          const int waited = wait_for(count);
          now = monotonic_ns();
          return waited;
        });
    if (reaped < 0) return IoFailure{-reaped, "io_uring_enter"};
  }
  return failure;
}

Json IoUringEngine::setup() const {
  Json dropped = flag_names(requested_flags_ & ~accepted_flags_);
  return {{"ring_flags", flag_names(accepted_flags_)},
          {"dropped_flags", std::move(dropped)},
          {"dropped_because", "EINVAL from io_uring_setup"},
          {"sq_entries", sq_entries_},
          {"cq_entries", cq_entries_},
          {"features", features_},
          {"registered_buffers", job_.engine.fixedbufs},
          {"registered_files", job_.engine.regfiles},
          {"registered_ring_fd", ring_fd_registered_}};
}

}  // namespace

Result<std::unique_ptr<Engine>> make_io_uring_engine(const ProbeJob& job, int fd,
                                                     BufferPool& buffers) {
  return initialized_engine<IoUringEngine>(job, fd, buffers);
}

}  // namespace kdrift
