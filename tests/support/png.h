#pragma once
// Reading PNG screenshots in tests: 8-bit RGB or RGBA, not interlaced, which is what Chromium
// writes. Anything else is refused with the reason rather than guessed at.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift::testing {

struct Rgba {
  uint8_t r = 0;
  uint8_t g = 0;
  uint8_t b = 0;
  uint8_t a = 255;
  bool operator==(const Rgba&) const = default;
};

// "#2b6cb0" as an opaque colour; nullopt unless exactly "#rrggbb".
std::optional<Rgba> parse_hex_colour(std::string_view text);

struct Image {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<Rgba> pixels;  // row by row, top left first
  Rgba at(uint32_t x, uint32_t y) const { return pixels[size_t{y} * width + x]; }
};

// nullopt with error set on a malformed or unsupported file (CRCs are checked).
std::optional<Image> decode_png(std::string_view data, std::string* error);
std::optional<Image> read_png(const std::string& path, std::string* error);

// Pixels whose every channel is within tolerance of colour's (alpha ignored).
size_t count_near(const Image& image, Rgba colour, int tolerance);

}  // namespace kdrift::testing
