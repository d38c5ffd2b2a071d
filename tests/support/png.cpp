#include "support/png.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kdrift::testing {
namespace {

constexpr std::string_view kSignature = "\x89PNG\r\n\x1a\n";
// A screenshot of a long page is large but bounded; this keeps a corrupt header from asking for
// gigabytes.
constexpr uint64_t kMaxPixels = uint64_t{1} << 28;

uint32_t big_endian(std::string_view data, size_t offset) {
  const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(data[i])); };
  return byte(offset) << 24 | byte(offset + 1) << 16 | byte(offset + 2) << 8 | byte(offset + 3);
}

std::optional<Image> fail(std::string* error, std::string reason) {
  *error = std::move(reason);
  return std::nullopt;
}

std::optional<std::string> inflate_all(std::string_view compressed, size_t expected) {
  std::string out(expected, '\0');
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) return std::nullopt;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = inflate(&stream, Z_FINISH);
  const bool complete = status == Z_STREAM_END && stream.total_out == expected;
  inflateEnd(&stream);
  if (!complete) return std::nullopt;
  return out;
}

uint8_t paeth(int left, int up, int up_left) {
  const int estimate = left + up - up_left;
  const int to_left = std::abs(estimate - left);
  const int to_up = std::abs(estimate - up);
  const int to_up_left = std::abs(estimate - up_left);
  if (to_left <= to_up && to_left <= to_up_left) return static_cast<uint8_t>(left);
  if (to_up <= to_up_left) return static_cast<uint8_t>(up);
  return static_cast<uint8_t>(up_left);
}

// Undoes the per-row filters in place; rows are [filter byte][stride bytes].
bool unfilter(std::string& raw, size_t stride, size_t rows, size_t channels) {
  for (size_t y = 0; y < rows; ++y) {
    auto* row = reinterpret_cast<uint8_t*>(raw.data()) + y * (stride + 1);
    const uint8_t filter = row[0];
    uint8_t* line = row + 1;
    const uint8_t* previous = y > 0 ? line - (stride + 1) : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int left = i >= channels ? line[i - channels] : 0;
      const int up = previous != nullptr ? previous[i] : 0;
      const int up_left = previous != nullptr && i >= channels ? previous[i - channels] : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          predicted = left;
          break;
        case 2:
          predicted = up;
          break;
        case 3:
          predicted = (left + up) / 2;
          break;
        case 4:
          predicted = paeth(left, up, up_left);
          break;
        default:
          return false;
      }
      line[i] = static_cast<uint8_t>(line[i] + predicted);
    }
  }
  return true;
}

}  // namespace

std::optional<Rgba> parse_hex_colour(std::string_view text) {
  if (text.size() != 7 || text[0] != '#') return std::nullopt;
  uint8_t channels[3];
  for (size_t i = 0; i < 3; ++i) {
    const std::string pair(text.substr(1 + 2 * i, 2));
    char* end = nullptr;
    const long value = std::strtol(pair.c_str(), &end, 16);
    if (end != pair.c_str() + 2) return std::nullopt;
    channels[i] = static_cast<uint8_t>(value);
  }
  return Rgba{channels[0], channels[1], channels[2], 255};
}

std::optional<Image> decode_png(std::string_view data, std::string* error) {
  if (!data.starts_with(kSignature)) return fail(error, "not a PNG file (no signature)");
  Image image;
  uint8_t colour_type = 0;
  std::string compressed;
  bool ended = false;
  for (size_t offset = kSignature.size(); !ended;) {
    if (offset + 12 > data.size()) return fail(error, "truncated before IEND");
    const uint32_t length = big_endian(data, offset);
    if (length > data.size() - offset - 12) return fail(error, "chunk runs past the end");
    const std::string_view type = data.substr(offset + 4, 4);
    const std::string_view body = data.substr(offset + 8, length);
    const uint32_t stored_crc = big_endian(data, offset + 8 + length);
    const auto computed_crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(data.data() + offset + 4), length + 4));
    if (stored_crc != computed_crc) return fail(error, "bad CRC in " + std::string(type));
    if (type == "IHDR") {
      if (length != 13) return fail(error, "IHDR of " + std::to_string(length) + " bytes");
      image.width = big_endian(body, 0);
      image.height = big_endian(body, 4);
      const auto bit_depth = static_cast<uint8_t>(body[8]);
      colour_type = static_cast<uint8_t>(body[9]);
      if (bit_depth != 8 || (colour_type != 2 && colour_type != 6)) {
        return fail(error, "unsupported bit depth " + std::to_string(bit_depth) +
                               " or colour type " + std::to_string(colour_type) +
                               " (8-bit RGB or RGBA only)");
      }
      if (body[10] != 0 || body[11] != 0 || body[12] != 0) {
        return fail(error, "unsupported compression, filter or interlace method");
      }
    } else if (type == "IDAT") {
      compressed.append(body);
    } else if (type == "IEND") {
      ended = true;
    }
    offset += 12 + length;
  }
  if (image.width == 0 || image.height == 0) return fail(error, "no IHDR or an empty image");
  if (uint64_t{image.width} * image.height > kMaxPixels) return fail(error, "image too large");

  const size_t channels = colour_type == 6 ? 4 : 3;
  const size_t stride = size_t{image.width} * channels;
  auto raw = inflate_all(compressed, (stride + 1) * image.height);
  if (!raw) return fail(error, "IDAT does not inflate to the size IHDR gives");
  if (!unfilter(*raw, stride, image.height, channels)) return fail(error, "unknown row filter");

  image.pixels.resize(size_t{image.width} * image.height);
  for (size_t y = 0; y < image.height; ++y) {
    const auto* line = reinterpret_cast<const uint8_t*>(raw->data()) + y * (stride + 1) + 1;
    for (size_t x = 0; x < image.width; ++x) {
      const uint8_t* pixel = line + x * channels;
      image.pixels[y * image.width + x] =
          Rgba{pixel[0], pixel[1], pixel[2], channels == 4 ? pixel[3] : uint8_t{255}};
    }
  }
  return image;
}

std::optional<Image> read_png(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(error, "cannot open " + path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  auto image = decode_png(bytes.str(), error);
  if (!image) *error = path + ": " + *error;
  return image;
}

size_t count_near(const Image& image, Rgba colour, int tolerance) {
  return static_cast<size_t>(std::count_if(image.pixels.begin(), image.pixels.end(), [&](Rgba p) {
    return std::abs(p.r - colour.r) <= tolerance && std::abs(p.g - colour.g) <= tolerance &&
           std::abs(p.b - colour.b) <= tolerance;
  }));
}

}  // namespace kdrift::testing
