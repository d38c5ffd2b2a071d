#include "iobench/engine.h"

#include <cstdlib>

namespace kdrift {

BufferPool::BufferPool(uint32_t count, uint64_t size, bool stamp_writes)
    : count_(count), size_(size), stamp_writes_(stamp_writes), created_ns_(monotonic_ns()) {
  void* memory = nullptr;
  if (::posix_memalign(&memory, 4096, static_cast<size_t>(count) * size) != 0) return;
  memory_ = static_cast<char*>(memory);
  FastRandom random(0x6b64726966742d62);
  fill_incompressible(random, memory_, static_cast<size_t>(count) * size);
}

BufferPool::~BufferPool() {
  std::free(memory_);
}

IoFailure transfer_failure(bool write, uint64_t offset, long result) {
  const std::string where =
      std::string(write ? "write" : "read") + " at offset " + std::to_string(offset);
  if (result < 0) return IoFailure{static_cast<int>(-result), where};
  return IoFailure{EIO, "short " + where + ": " + std::to_string(result) + " bytes"};
}

Result<std::unique_ptr<Engine>> make_engine(const ProbeJob& job, int fd, BufferPool& buffers) {
  switch (job.engine.kind) {
    case EngineKind::kIoUring:
      return make_io_uring_engine(job, fd, buffers);
    case EngineKind::kLibaio:
      return make_libaio_engine(job, fd, buffers);
    case EngineKind::kPsync:
    case EngineKind::kPvsync2:
      return make_sync_engine(job, fd, buffers);
  }
  return make_error(EINVAL, "unknown engine");
}

}  // namespace kdrift
