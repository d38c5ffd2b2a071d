#include "util/decompressed_stream.h"

#include <lzma.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "util/libarchive.h"
#include "util/units.h"

namespace kdrift {
namespace {

constexpr size_t kChunkBytes = 65536;

// ZSTD_WINDOWLOG_LIMIT_DEFAULT: libzstd refuses a larger window unless told otherwise, which
// libarchive does not do. Its error is the one said in kdrift's words.
constexpr uint64_t kZstdWindowLimit = uint64_t{1} << 27;

uint64_t little_endian(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;)
    value = value << 8 | static_cast<unsigned char>(bytes[i]);
  return value;
}

bool is_xz(std::string_view head) {
  return head.starts_with(
      std::string_view("\xFD"
                       "7zXZ\0",
                       6));
}

// .lzma has no magic: this is liblzma's own test in its picky mode (the one `xz -d` uses), a
// properties byte below 225, a dictionary of 2^n or 2^n + 2^(n-1) bytes, an uncompressed size
// unknown or below 2^38, and then the first byte of LZMA data, which is always 0; and, since a
// tar whose first name is a few letters passes that, a dictionary of at least the 4 KiB every
// encoder writes and a size other than 0.
bool is_lzma_alone(std::string_view head) {
  if (head.size() < 14 || static_cast<unsigned char>(head[0]) > (4 * 5 + 4) * 9 + 8) return false;
  const auto dictionary = static_cast<uint32_t>(little_endian(head.substr(1, 4)));
  uint32_t rounded = dictionary - 1;
  rounded |= rounded >> 2;
  rounded |= rounded >> 3;
  rounded |= rounded >> 4;
  rounded |= rounded >> 8;
  rounded |= rounded >> 16;
  if (dictionary < LZMA_DICT_SIZE_MIN) return false;
  if (dictionary != UINT32_MAX && rounded + 1 != dictionary) return false;
  const uint64_t size = little_endian(head.substr(5, 8));
  return (size == UINT64_MAX || (size > 0 && size < (uint64_t{1} << 38))) && head[13] == '\0';
}

// xz (concatenated streams, as parallel compressors write them) and .lzma through liblzma, which
// refuses a stream, or any block of one, whose decoder would take more than the memory limit.
class LzmaStream final : public DecompressedStream {
 public:
  LzmaStream(CompressedInput input, uint64_t memory_limit, const char* format)
      : input_(std::move(input)), memory_limit_(memory_limit), format_(format) {}
  ~LzmaStream() override { lzma_end(&stream_); }
  LzmaStream(const LzmaStream&) = delete;
  LzmaStream& operator=(const LzmaStream&) = delete;

  Status start(bool xz) {
    const lzma_ret started = xz ? lzma_stream_decoder(&stream_, memory_limit_, LZMA_CONCATENATED)
                                : lzma_alone_decoder(&stream_, memory_limit_);
    if (started != LZMA_OK) return failure(started);
    return ok_status();
  }

  Result<std::string_view> next() override {
    while (!ended_) {
      if (stream_.avail_in == 0 && !input_ended_) {
        auto chunk = input_.read();
        if (!chunk) return chunk.error();
        input_ended_ = chunk->empty();
        stream_.next_in = reinterpret_cast<const uint8_t*>(chunk->data());
        stream_.avail_in = chunk->size();
      }
      stream_.next_out = reinterpret_cast<uint8_t*>(output_);
      stream_.avail_out = sizeof output_;
      const lzma_ret status = lzma_code(&stream_, input_ended_ ? LZMA_FINISH : LZMA_RUN);
      if (status == LZMA_STREAM_END) ended_ = true;
      if (status != LZMA_OK && status != LZMA_STREAM_END) return failure(status);
      const size_t produced = sizeof output_ - stream_.avail_out;
      if (produced > 0) return std::string_view(output_, produced);
    }
    return std::string_view();
  }

 private:
  Error failure(lzma_ret status) {
    const std::string data = std::string(format_) + " data";
    switch (status) {
      case LZMA_MEMLIMIT_ERROR:
        return content_error(data + " needs " + describe_bytes(lzma_memusage(&stream_)) +
                             " of memory to decompress (its dictionary), more than the " +
                             describe_bytes(memory_limit_) + " kdrift allows");
      case LZMA_MEM_ERROR:
        return make_error(ENOMEM, data);
      case LZMA_BUF_ERROR:
        return content_error("truncated " + data);
      case LZMA_OPTIONS_ERROR:
        return content_error(data + " with options liblzma does not support");
      default:
        return content_error("corrupt " + data + " (liblzma error " + std::to_string(status) + ")");
    }
  }

  CompressedInput input_;
  const uint64_t memory_limit_;
  const char* const format_;
  lzma_stream stream_ = LZMA_STREAM_INIT;
  bool input_ended_ = false;
  bool ended_ = false;
  char output_[kChunkBytes];
};

// gzip, bzip2, zstd and lz4 through libarchive's filters, whose output its "raw" format hands
// over as the data of one entry. Only filters backed by a linked library: registering the others
// (lrzip, lzop, grzip, ...) makes libarchive run an external program on the stranger's bytes.
class FilterStream final : public DecompressedStream {
 public:
  explicit FilterStream(CompressedInput input)
      : input_(std::move(input)), reader_(libarchive().archive_read_new()) {}

  Status start() {
    archive* reader = reader_.get();
    libarchive().archive_read_support_filter_gzip(reader);
    libarchive().archive_read_support_filter_bzip2(reader);
    libarchive().archive_read_support_filter_zstd(reader);
    libarchive().archive_read_support_filter_lz4(reader);
    libarchive().archive_read_support_format_raw(reader);
    archive_entry* entry = nullptr;
    if (libarchive().archive_read_open(reader, this, nullptr, &FilterStream::pull, nullptr) !=
            ARCHIVE_OK ||
        libarchive().archive_read_next_header(reader, &entry) != ARCHIVE_OK) {
      return failure();
    }
    // Filters stack, innermost first; the last is the file itself ("none").
    if (libarchive().archive_filter_count(reader) > 2) {
      return content_error(std::string("compressed twice (") +
                           libarchive().archive_filter_name(reader, 0) + " inside " +
                           libarchive().archive_filter_name(reader, 1) +
                           "): kdrift undoes one layer of compression");
    }
    return ok_status();
  }

  Result<std::string_view> next() override {
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    const int status = libarchive().archive_read_data_block(reader_.get(), &block, &size, &offset);
    if (status == ARCHIVE_EOF) return std::string_view();
    if (status != ARCHIVE_OK) return failure();
    return std::string_view(static_cast<const char*>(block), size);
  }

 private:
  static la_ssize_t pull(archive* reader, void* client, const void** buffer) {
    auto* self = static_cast<FilterStream*>(client);
    auto chunk = self->input_.read();
    if (!chunk) {
      self->input_error_ = chunk.error();
      libarchive().archive_set_error(reader, chunk.error().code, "%s",
                                     chunk.error().context.c_str());
      return -1;
    }
    *buffer = chunk->data();
    return static_cast<la_ssize_t>(chunk->size());
  }

  Error failure() const {
    if (input_error_) return *input_error_;
    const char* message = libarchive().archive_error_string(reader_.get());
    const std::string why = message != nullptr ? message : "unknown error";
    if (why.find("Frame requires too much memory") != std::string::npos) {
      return content_error("zstd data needs a window larger than the " +
                           describe_bytes(kZstdWindowLimit) + " libzstd allows (" + why + ")");
    }
    // After a fatal error libarchive may name no filter, or "none": the file itself.
    const char* filter = libarchive().archive_filter_name(reader_.get(), 0);
    if (filter == nullptr || std::string_view(filter) == "none") return content_error(why);
    return content_error(std::string("corrupt ") + filter + " data: " + why);
  }

  CompressedInput input_;
  ArchiveReadPtr reader_;
  std::optional<Error> input_error_;
};

}  // namespace

void ArchiveReadDeleter::operator()(archive* handle) const {
  libarchive().archive_read_free(handle);
}

Result<CompressedInput> CompressedInput::of_file(int fd) {
  CompressedInput input;
  input.fd_ = fd;
  input.buffer_.resize(kChunkBytes);
  size_t filled = 0;
  while (filled < input.buffer_.size()) {
    const ssize_t got = ::read(fd, input.buffer_.data() + filled, input.buffer_.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return make_error(errno, "read");
    if (got == 0) break;
    filled += static_cast<size_t>(got);
  }
  input.head_size_ = filled;
  return input;
}

CompressedInput CompressedInput::of_bytes(std::string_view bytes) {
  CompressedInput input;
  input.bytes_ = bytes;
  return input;
}

std::string_view CompressedInput::head() const {
  return fd_ < 0 ? bytes_ : std::string_view(buffer_.data(), head_size_);
}

Result<std::string_view> CompressedInput::read() {
  if (!head_taken_) {
    head_taken_ = true;
    return head();
  }
  if (fd_ < 0) return std::string_view();
  while (true) {
    const ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
    if (got >= 0) return std::string_view(buffer_.data(), static_cast<size_t>(got));
    if (errno != EINTR) return make_error(errno, "read");
  }
}

Result<std::unique_ptr<DecompressedStream>> open_decompressed(CompressedInput input,
                                                              uint64_t memory_limit) {
  const std::string_view head = input.head();
  if (is_xz(head) || is_lzma_alone(head)) {
    const bool xz = is_xz(head);
    auto stream = std::make_unique<LzmaStream>(std::move(input), memory_limit, xz ? "xz" : "lzma");
    if (auto started = stream->start(xz); !started) return started.error();
    return std::unique_ptr<DecompressedStream>(std::move(stream));
  }
  auto stream = std::make_unique<FilterStream>(std::move(input));
  if (auto started = stream->start(); !started) return started.error();
  return std::unique_ptr<DecompressedStream>(std::move(stream));
}

}  // namespace kdrift
