#pragma once
// The decompressed bytes of a stranger's file, pulled a chunk at a time, with the decoder's memory
// bounded whatever the stream declares. Exactly one compression layer is undone: a stream
// compressed twice (gzip inside gzip) is refused, since its inner layer could cost any amount
// of work for no output, and what comes out of the one layer is never looked at for another.
//
// xz and lzma declare a dictionary of up to 4 GiB that liblzma allocates as declared (libarchive
// gives it no memory limit), so they are decoded here with liblzma and memory_limit. gzip (a
// 32 KiB window), bzip2 (900 KB blocks, about 3.7 MB to decode), lz4 (at most 4 MiB blocks, 8 MiB
// for its legacy frames) are bounded by their formats and decoded by libarchive's filters; so is
// zstd, whose window libzstd refuses past 2^27 bytes (128 MiB, ZSTD_WINDOWLOG_LIMIT_DEFAULT)
// unless told otherwise, which libarchive does not do. Anything else passes through as it is.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

struct archive;

namespace kdrift {

// libarchive's read handles, freed with archive_read_free (here and by the tar reader).
struct ArchiveReadDeleter {
  void operator()(archive* handle) const;
};
using ArchiveReadPtr = std::unique_ptr<archive, ArchiveReadDeleter>;

// xz -9 (and lzma -9) decode with a 64 MiB dictionary, about 65 MiB in all: twice that leaves room
// for any archive xz or tar writes, and matches zstd's own 128 MiB window limit.
inline constexpr uint64_t kDecoderMemoryLimit = uint64_t{128} << 20;

// Where the compressed bytes come from: a regular file's descriptor (read from offset 0, which
// the caller keeps open), or bytes in memory (kept alive by the caller).
class CompressedInput {
 public:
  static Result<CompressedInput> of_file(int fd);
  static CompressedInput of_bytes(std::string_view bytes);

  // The first bytes, for telling the format, without consuming them.
  std::string_view head() const;
  // The next bytes, head() first; empty at the end.
  Result<std::string_view> read();

 private:
  CompressedInput() = default;

  int fd_ = -1;
  std::string_view bytes_;  // the input in memory, when there is no fd_
  std::string buffer_;      // what was last read from fd_
  size_t head_size_ = 0;    // of buffer_
  bool head_taken_ = false;
};

class DecompressedStream {
 public:
  virtual ~DecompressedStream() = default;
  // The next decompressed bytes, valid until the next call; empty once the stream has ended.
  virtual Result<std::string_view> next() = 0;
};

// The decoder input's first bytes call for. Refused, then or while reading: a decoder needing
// more than memory_limit, corrupt or truncated data, a second layer.
Result<std::unique_ptr<DecompressedStream>> open_decompressed(CompressedInput input,
                                                              uint64_t memory_limit);

}  // namespace kdrift
