#pragma once
// An I/O engine runs one job's loop: keep iodepth I/Os in flight against fd, time them, and
// hand completions to the recorder until it says the window is over, then drain.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iobench/io_pattern.h"
#include "iobench/recorder.h"
#include "model/probe_job.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

// I/O buffers for every slot, aligned for O_DIRECT and filled with incompressible data.
class BufferPool {
 public:
  // stamp_writes: for_io() stamps every write's sectors as fio's scramble_buffers does.
  BufferPool(uint32_t count, uint64_t size, bool stamp_writes = false);
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool();
  bool ok() const { return memory_ != nullptr; }
  char* at(uint32_t slot) const { return memory_ + static_cast<uint64_t>(slot) * size_; }
  // The slot's buffer for this I/O, stamped first if it is a write and the pool stamps.
  char* for_io(uint32_t slot, const IoTarget& io, uint64_t now_ns) const {
    char* buffer = at(slot);
    if (stamp_writes_ && io.write) stamp_sectors(buffer, size_, io.offset, now_ns - created_ns_);
    return buffer;
  }
  uint32_t count() const { return count_; }
  uint64_t size() const { return size_; }

 private:
  char* memory_ = nullptr;
  uint32_t count_;
  uint64_t size_;
  bool stamp_writes_;
  uint64_t created_ns_;
};

// An I/O that failed: the job stops, and the errno is kept for the capability report.
struct IoFailure {
  int code = 0;
  std::string what;  // "io_uring_queue_init", "read at offset 4096", ...
};

// The failure of one I/O: its errno, or EIO for a short transfer.
IoFailure transfer_failure(bool write, uint64_t offset, long result);

class Engine {
 public:
  virtual ~Engine() = default;
  // Runs the job; on failure the recorder keeps what completed before it.
  virtual std::optional<IoFailure> run(IoPattern& pattern, Recorder& recorder) = 0;
  // What the engine set up, for the report: ring flags accepted and dropped, queue sizes.
  virtual Json setup() const = 0;
};

// Sets the engine up for the job on fd: ring or aio context creation failures come back with
// their errno (EPERM when io_uring is disabled, ENOMEM for the memlock limit, EINVAL for flags
// the kernel does not know).
Result<std::unique_ptr<Engine>> make_engine(const ProbeJob& job, int fd, BufferPool& buffers);

// A new engine of type E for the job, or why its init() failed.
template <typename E>
Result<std::unique_ptr<Engine>> initialized_engine(const ProbeJob& job, int fd,
                                                   BufferPool& buffers) {
  auto engine = std::make_unique<E>(job, fd, buffers);
  if (auto status = engine->init(); !status) return status.error();
  return std::unique_ptr<Engine>(std::move(engine));
}

Result<std::unique_ptr<Engine>> make_io_uring_engine(const ProbeJob& job, int fd,
                                                     BufferPool& buffers);
Result<std::unique_ptr<Engine>> make_libaio_engine(const ProbeJob& job, int fd,
                                                   BufferPool& buffers);
std::unique_ptr<Engine> make_sync_engine(const ProbeJob& job, int fd, BufferPool& buffers);

}  // namespace kdrift
