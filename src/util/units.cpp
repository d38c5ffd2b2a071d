#include "util/units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "util/text.h"

namespace kdrift {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Leading decimal number (digits with an optional fraction) and the rest.
std::optional<std::pair<double, std::string>> split_number(std::string_view text) {
  text = trim(text);
  size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) != 0 || text[end] == '.')) {
    ++end;
  }
  if (end == 0) return std::nullopt;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
  if (ec != std::errc() || ptr != text.data() + end) return std::nullopt;
  return std::make_pair(value, lower(trim(text.substr(end))));
}

}  // namespace

std::optional<uint64_t> parse_size(std::string_view text) {
  const auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  const auto& [value, unit] = *parsed;
  static const std::array<std::string_view, 5> kPrefixes = {"", "k", "m", "g", "t"};
  for (size_t power = 0; power < kPrefixes.size(); ++power) {
    const std::string prefix(kPrefixes[power]);
    const bool matches = unit == prefix ||
                         (!prefix.empty() && (unit == prefix + "b" || unit == prefix + "ib")) ||
                         (prefix.empty() && unit == "b");
    if (!matches) continue;
    const double bytes = value * std::pow(1024.0, static_cast<double>(power));
    if (bytes >= 18446744073709551615.0 || bytes != std::floor(bytes)) return std::nullopt;
    return static_cast<uint64_t>(bytes);
  }
  return std::nullopt;
}

std::optional<std::chrono::microseconds> parse_duration(std::string_view text) {
  const auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  const auto& [value, unit] = *parsed;
  double micros_per_unit = 0;
  if (unit.empty() || unit == "s" || unit == "sec") {
    micros_per_unit = 1e6;
  } else if (unit == "us" || unit == "usec") {
    micros_per_unit = 1;
  } else if (unit == "ms" || unit == "msec") {
    micros_per_unit = 1e3;
  } else if (unit == "m" || unit == "min") {
    micros_per_unit = 60e6;
  } else if (unit == "h") {
    micros_per_unit = 3600e6;
  } else {
    return std::nullopt;
  }
  const double micros = value * micros_per_unit;
  if (micros > 1e15 || micros != std::floor(micros)) return std::nullopt;
  return std::chrono::microseconds(static_cast<int64_t>(micros));
}

std::string format_size(uint64_t bytes) {
  static const std::array<char, 4> kSuffixes = {'k', 'm', 'g', 't'};
  if (bytes == 0 || bytes % 1024 != 0) return std::to_string(bytes);
  size_t power = 0;
  while (power < kSuffixes.size() && bytes % 1024 == 0) {
    bytes /= 1024;
    ++power;
  }
  return std::to_string(bytes) + kSuffixes[power - 1];
}

std::string describe_bytes(uint64_t bytes) {
  static constexpr std::pair<int, const char*> kUnits[] = {
      {40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}};
  for (const auto& [shift, unit] : kUnits) {
    const uint64_t size = uint64_t{1} << shift;
    if (bytes >= size && bytes % size == 0) return std::to_string(bytes >> shift) + " " + unit;
  }
  constexpr uint64_t kMebibyte = uint64_t{1} << 20;
  if (bytes >= kMebibyte) return std::to_string((bytes + kMebibyte - 1) / kMebibyte) + " MiB";
  return std::to_string(bytes) + " bytes";
}

std::string approximate_bytes(uint64_t bytes) {
  constexpr uint64_t kMebibyte = uint64_t{1} << 20;
  constexpr uint64_t kGibibyte = uint64_t{1} << 30;
  if (bytes < 10 * kGibibyte) return std::to_string((bytes + kMebibyte - 1) / kMebibyte) + " MiB";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB",
                static_cast<double>(bytes) / static_cast<double>(kGibibyte));
  return text;
}

std::string format_duration(std::chrono::microseconds duration) {
  const auto micros = duration.count();
  char buffer[32];
  if (micros != 0 && micros % 1000000 == 0) return std::to_string(micros / 1000000) + "s";
  if (micros >= 1000000) {
    (void)std::snprintf(buffer, sizeof buffer, "%gs", static_cast<double>(micros) / 1e6);
    return buffer;
  }
  if (micros != 0 && micros % 1000 == 0) return std::to_string(micros / 1000) + "ms";
  return std::to_string(micros) + "us";
}

}  // namespace kdrift
