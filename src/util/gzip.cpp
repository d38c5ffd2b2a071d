#include "util/gzip.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <memory>

namespace kdrift {

namespace {

using Decompressor = std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)>;

}  // namespace

Result<std::string> gunzip(std::string_view compressed, const std::string& context,
                           size_t max_bytes) {
  // A gzip member: a 10-byte header, the deflate stream, and a trailer whose last four bytes
  // state the text's size (mod 2^32, and the sender's word).
  constexpr size_t kFraming = 18;
  if (compressed.size() < kFraming) return content_error(context + ": truncated gzip data");
  const auto* tail =
      reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
  const size_t stated = tail[0] | tail[1] << 8 | tail[2] << 16 | size_t{tail[3]} << 24;
  const Decompressor decompressor(libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  if (!decompressor) return content_error(context + ": no memory to decompress gzip data");
  // libdeflate inflates into a buffer of a given size (2.5 times zlib's speed on snapshots):
  // the stated size when it is within max_bytes, and only if that is too small (the size lies,
  // or wrapped past 4 GiB) max_bytes itself, so no more than max_bytes is ever allocated and a
  // bomb stops at it. The stated size is checked against what came out, with the CRC.
  std::string text;
  for (const size_t room : {std::min(stated, max_bytes), max_bytes}) {
    text.resize(room);
    size_t produced = 0;
    const libdeflate_result result =
        libdeflate_gzip_decompress(decompressor.get(), compressed.data(), compressed.size(),
                                   text.data(), text.size(), &produced);
    if (result == LIBDEFLATE_SUCCESS) {
      text.resize(produced);
      return text;
    }
    if (result != LIBDEFLATE_INSUFFICIENT_SPACE) {
      return content_error(context + ": corrupt or truncated gzip data");
    }
    if (room == max_bytes) break;
  }
  return content_error(context + ": decompresses to more than " + std::to_string(max_bytes) +
                       " bytes");
}

Result<std::string> gzip(std::string_view plain, const std::string& context) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return content_error(context + ": zlib could not start");
  }
  // deflateBound is an upper limit for one Z_FINISH call, so the output never needs to grow.
  std::string out(deflateBound(&stream, plain.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  stream.avail_in = static_cast<uInt>(plain.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) return content_error(context + ": gzip compression did not finish");
  return out;
}

}  // namespace kdrift
