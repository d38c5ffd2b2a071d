#include "util/gzip.h"

#include <zlib.h>

#include <algorithm>

namespace kdrift {

Result<std::string> gunzip(std::string_view compressed, const std::string& context,
                           size_t max_bytes) {
  z_stream stream{};
  // 16 + MAX_WBITS: accept the gzip header, not raw zlib.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    return content_error(context + ": zlib could not start");
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  // The trailer's size (mod 2^32, and the sender's word) reserved, at most max_bytes: growing by
  // doubling would copy the text and touch up to twice the limit before refusing a bomb.
  if (compressed.size() >= 4) {
    const auto* tail =
        reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
    const size_t stated = tail[0] | tail[1] << 8 | tail[2] << 16 | size_t{tail[3]} << 24;
    out.reserve(std::min(stated, max_bytes));
  }
  char buffer[65536];
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) break;
    // Checked before appending: the text never grows past max_bytes.
    const size_t produced = sizeof buffer - stream.avail_out;
    if (out.size() + produced > max_bytes) {
      inflateEnd(&stream);
      return content_error(context + ": decompresses to more than " + std::to_string(max_bytes) +
                           " bytes");
    }
    out.append(buffer, produced);
    if (status == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) {
      status = Z_BUF_ERROR;  // input ended before the stream did
    }
  }
  const std::string message = stream.msg != nullptr ? stream.msg : "";
  inflateEnd(&stream);
  if (status == Z_STREAM_END) return out;
  if (status == Z_BUF_ERROR) return content_error(context + ": truncated gzip data");
  return content_error(context + ": corrupt gzip data" +
                       (message.empty() ? "" : " (" + message + ")"));
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
