// psync (pread/pwrite) and pvsync2 (preadv2/pwritev2, with RWF_HIPRI for polled completion):
// one I/O at a time; the whole call is completion latency, as fio reports for sync engines.

#include <sys/uio.h>

#include "iobench/engine.h"

namespace kdrift {
namespace {

class SyncEngine final : public Engine {
 public:
  SyncEngine(const ProbeJob& job, int fd, BufferPool& buffers)
      : job_(job), fd_(fd), buffers_(buffers) {}

  std::optional<IoFailure> run(IoPattern& pattern, Recorder& recorder) override {
    const bool vectored = job_.engine.kind == EngineKind::kPvsync2;
    const int flags = job_.engine.hipri ? RWF_HIPRI : 0;
    iovec vector{buffers_.at(0), static_cast<size_t>(job_.block_size)};
    uint64_t now = monotonic_ns();
    while (!recorder.finished(now)) {
      const IoTarget io = pattern.next();
      vector.iov_base = buffers_.for_io(0, io, now);
      const auto offset = static_cast<off_t>(io.offset);
      ssize_t result = 0;
      if (vectored) {
        result = io.write ? ::pwritev2(fd_, &vector, 1, offset, flags)
                          : ::preadv2(fd_, &vector, 1, offset, flags);
      } else {
        result = io.write ? ::pwrite(fd_, vector.iov_base, vector.iov_len, offset)
                          : ::pread(fd_, vector.iov_base, vector.iov_len, offset);
      }
      const uint64_t done = monotonic_ns();
      recorder.submit_call(1);
      if (result != static_cast<ssize_t>(job_.block_size)) {
        if (result < 0 && errno == EINTR) continue;
        const std::string where =
            std::string(io.write ? "write" : "read") + " at offset " + std::to_string(io.offset);
        if (result < 0) return IoFailure{errno, where};
        return IoFailure{EIO, "short " + where + ": " + std::to_string(result) + " bytes"};
      }
      recorder.finished(done);
      recorder.completed(io.write, now, now, done);
      now = done;
    }
    return std::nullopt;
  }

  Json setup() const override {
    return {{"call", job_.engine.kind == EngineKind::kPvsync2
                         ? (job_.engine.hipri ? "preadv2/pwritev2 RWF_HIPRI" : "preadv2/pwritev2")
                         : "pread/pwrite"}};
  }

 private:
  ProbeJob job_;
  int fd_;
  BufferPool& buffers_;
};

}  // namespace

std::unique_ptr<Engine> make_sync_engine(const ProbeJob& job, int fd, BufferPool& buffers) {
  return std::make_unique<SyncEngine>(job, fd, buffers);
}

}  // namespace kdrift
