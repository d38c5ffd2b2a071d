#include "util/text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kdrift {
namespace {

void append_hex_escape(std::string& out, unsigned char byte) {
  constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

}  // namespace

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kSpace);
  return text.substr(first, last - first + 1);
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    fields.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return fields;
}

std::vector<std::string> split_whitespace(std::string_view text) {
  std::vector<std::string> fields;
  size_t pos = 0;
  while (pos < text.size()) {
    const auto start = text.find_first_not_of(" \t\n", pos);
    if (start == std::string_view::npos) break;
    const auto end = text.find_first_of(" \t\n", start);
    fields.emplace_back(text.substr(start, end - start));
    pos = end;
  }
  return fields;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines = split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::string largest_counts(std::vector<std::pair<double, std::string>> counts, size_t limit) {
  std::sort(counts.rbegin(), counts.rend());
  std::string list;
  for (size_t i = 0; i < counts.size() && i < limit; ++i) {
    char count[64];
    (void)std::snprintf(count, sizeof count, "%.0f", counts[i].first);
    list += (i == 0 ? "" : ", ") + counts[i].second + " " + count;
  }
  return list;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

namespace {
template <class Int>
std::optional<Int> parse_integral(std::string_view text) {
  text = trim(text);
  int base = 10;
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if constexpr (std::is_signed_v<Int>) {
    const auto limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
    if (magnitude > limit) return std::nullopt;
    return negative ? static_cast<Int>(0 - magnitude) : static_cast<Int>(magnitude);
  } else {
    if (negative && magnitude != 0) return std::nullopt;
    return magnitude;
  }
}
}  // namespace

std::optional<int64_t> parse_int(std::string_view text) {
  return parse_integral<int64_t>(text);
}

std::optional<uint64_t> parse_uint(std::string_view text) {
  return parse_integral<uint64_t>(text);
}

std::optional<double> parse_double(std::string_view text) {
  const std::string owned(trim(text));
  if (owned.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(owned.c_str(), &end);
  if (errno != 0 || end != owned.c_str() + owned.size()) return std::nullopt;
  return value;
}

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  text = trim(text);
  if (text.empty()) return cpus;
  constexpr int64_t kMaxCpu = 1 << 20;  // guards against "0-4000000000" expanding forever
  for (const auto& range : split(text, ',')) {
    const auto dash = range.find('-');
    const auto first = parse_int(range.substr(0, dash));
    const auto last = dash == std::string::npos ? first : parse_int(range.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last > kMaxCpu) return std::nullopt;
    for (int64_t cpu = *first; cpu <= *last; ++cpu)
      cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

std::string quote_value(std::string_view text) {
  constexpr size_t kMaxShown = 80;
  std::string out = "\"";
  for (const char c : text.substr(0, kMaxShown)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      append_hex_escape(out, byte);
    }
  }
  out += '"';
  if (text.size() > kMaxShown) out += " (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::optional<BracketedChoice> parse_bracketed_choice(std::string_view text) {
  BracketedChoice choice;
  for (auto& word : split_whitespace(text)) {
    if (word.size() > 2 && word.front() == '[' && word.back() == ']') {
      if (!choice.active.empty()) return std::nullopt;
      word = word.substr(1, word.size() - 2);
      choice.active = word;
    } else if (word.find_first_of("[]") != std::string::npos) {
      return std::nullopt;
    }
    choice.available.push_back(std::move(word));
  }
  if (choice.active.empty()) return std::nullopt;
  return choice;
}

std::optional<std::string> find_colon_field(std::string_view text, std::string_view key) {
  for (const auto& line : split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(std::string_view(line).substr(0, colon)) == key) {
      return std::string(trim(std::string_view(line).substr(colon + 1)));
    }
  }
  return std::nullopt;
}

size_t utf8_text_length(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;   // the bounds of the second byte that keep the form shortest and
  unsigned char high = 0xbf;  // below the surrogates and U+10FFFF (RFC 3629's table)
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (text.size() - at < length || byte(1) < low || byte(1) > high) return 0;
  // U+0080-U+009F, C2 80 to C2 9F: C1 controls, which some terminals act on as ESC sequences
  // and HTML counts as parse errors.
  if (lead == 0xc2 && byte(1) < 0xa0) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
  }
  return length;
}

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const size_t length = utf8_text_length(text, at);
    if (length > 1 || (length == 1 && byte >= 0x20 && byte != 0x7f)) {
      out.append(text.substr(at, length));
      at += length;
    } else {
      append_hex_escape(out, byte);
      ++at;
    }
  }
  return out;
}

namespace {

bool is_octal(char c) {
  return c >= '0' && c <= '7';
}

}  // namespace

std::string unescape_octal(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && is_octal(text[i + 1]) && is_octal(text[i + 2]) &&
        is_octal(text[i + 3])) {
      out += static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                               (text[i + 3] - '0'));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace kdrift
