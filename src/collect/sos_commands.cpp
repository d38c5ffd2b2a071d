#include "collect/sos_commands.h"

#include <cstdint>
#include <cstdio>

#include "util/text.h"

namespace kdrift {
namespace {

// syslog's LOG_INFO: what a record gets when dmesg printed no level.
constexpr unsigned kDefaultPriority = 6;
// facility << 3 | level: the largest prefix /dev/kmsg writes is LOG_LOCAL7 | LOG_DEBUG.
constexpr unsigned kMaxPriority = 191;
// dmesg prints seconds since boot with up to 5 leading blanks; ten digits are three centuries.
constexpr size_t kMaxSecondDigits = 10;
constexpr size_t kMicroDigits = 6;
constexpr size_t kMaxFractionDigits = 9;
// Linux's own limits: a sysctl path component is a file name; procfs trees are shallow.
constexpr size_t kMaxKeyLength = 1024;
constexpr size_t kMaxKeyDepth = 16;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Plain decimal digits only (parse_uint also takes signs, blanks and "0x"), at most max_digits.
std::optional<uint64_t> decimal(std::string_view text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  for (const char c : text) {
    if (!is_digit(c)) return std::nullopt;
  }
  return parse_uint(text);
}

struct DmesgLine {
  std::optional<unsigned> priority;
  std::optional<uint64_t> usec;
  std::string_view message;
};

// "<N>" as dmesg -r prints it; the line is left unchanged when it has none.
std::optional<unsigned> take_priority(std::string_view& line) {
  const auto close = line.find('>');
  if (line.empty() || line.front() != '<' || close == std::string_view::npos || close > 4) {
    return std::nullopt;
  }
  const auto value = decimal(line.substr(1, close - 1), 3);
  if (!value || *value > kMaxPriority) return std::nullopt;
  line.remove_prefix(close + 1);
  return static_cast<unsigned>(*value);
}

// "[   12.345678] " -> 12345678 microseconds; the line is left unchanged when it has none.
std::optional<uint64_t> take_timestamp(std::string_view& line) {
  const auto close = line.find(']');
  if (line.empty() || line.front() != '[' || close == std::string_view::npos) return std::nullopt;
  const auto stamp = trim(line.substr(1, close - 1));
  const auto dot = stamp.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto seconds = decimal(stamp.substr(0, dot), kMaxSecondDigits);
  // dmesg prints microseconds; more digits (a nanosecond clock) are cut, fewer padded.
  std::string fraction(stamp.substr(dot + 1));
  if (!seconds || !decimal(fraction, kMaxFractionDigits)) return std::nullopt;
  fraction.resize(kMicroDigits, '0');
  line.remove_prefix(close + 1);
  if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return *seconds * 1'000'000 + *decimal(fraction, kMicroDigits);
}

DmesgLine parse_dmesg_line(std::string_view line) {
  DmesgLine parsed;
  std::string_view rest = line;
  parsed.priority = take_priority(rest);
  parsed.usec = take_timestamp(rest);
  // A "<N>" not followed by a timestamp was part of the message.
  if (parsed.priority && !parsed.usec) {
    parsed.priority.reset();
    rest = line;
  }
  parsed.message = rest;
  return parsed;
}

// As the kernel's devkmsg_read escapes a record's text.
std::string kmsg_escaped(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < ' ' || byte >= 0x7f) {
      char escape[8];
      (void)std::snprintf(escape, sizeof escape, "\\x%02x", byte);
      out += escape;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string kmsg_records_from_dmesg(std::string_view dmesg, size_t max_bytes) {
  std::string records;
  uint64_t sequence = 0;
  uint64_t usec = 0;
  for (const auto& line : split_lines(dmesg)) {
    const auto parsed = parse_dmesg_line(line);
    if (parsed.usec) usec = *parsed.usec;
    if (parsed.message.empty() && !parsed.usec) continue;
    std::string record = std::to_string(parsed.priority.value_or(kDefaultPriority)) + "," +
                         std::to_string(sequence) + "," + std::to_string(usec) + ",-;" +
                         kmsg_escaped(parsed.message) + "\n";
    if (records.size() + record.size() > max_bytes) break;
    records += record;
    ++sequence;
  }
  return records;
}

namespace {

bool is_key_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-' ||
         c == '.' || c == '/' || c == ':' || c == '@' || c == '+';
}

// "net.ipv4.conf.eth0/1.rp_filter" -> "/proc/sys/net/ipv4/conf/eth0.1/rp_filter".
std::optional<std::string> proc_sys_path(std::string_view key) {
  if (key.empty() || key.size() > kMaxKeyLength) return std::nullopt;
  for (const char c : key) {
    if (!is_key_character(c)) return std::nullopt;
  }
  const auto components = split(key, '.');
  if (components.size() > kMaxKeyDepth) return std::nullopt;
  std::string path = "/proc/sys";
  for (auto component : components) {
    for (auto& c : component) {
      if (c == '/') c = '.';
    }
    if (component.empty() || component == "." || component == "..") return std::nullopt;
    path += '/';
    path += component;
  }
  return path;
}

}  // namespace

std::map<std::string, std::string> proc_sys_files_from_sysctl(std::string_view output,
                                                              size_t max_keys) {
  std::map<std::string, std::string> files;
  for (const auto& line : split_lines(output)) {
    const auto separator = line.find(" = ");
    if (separator == std::string::npos) continue;
    const auto path = proc_sys_path(std::string_view(line).substr(0, separator));
    if (!path) continue;
    const auto value = std::string_view(line).substr(separator + 3);
    auto found = files.find(*path);
    if (found != files.end()) {
      found->second += std::string(value) + "\n";
    } else if (files.size() < max_keys) {
      files.emplace(*path, std::string(value) + "\n");
    }
  }
  return files;
}

std::optional<std::string> release_from_uname(std::string_view output) {
  const auto lines = split_lines(output);
  if (lines.empty()) return std::nullopt;
  const auto fields = split_whitespace(lines.front());
  if (fields.size() < 3 || fields[0] != "Linux") return std::nullopt;
  const std::string& release = fields[2];
  // The kernel's UTS release field holds 64 characters.
  if (release.size() > 64) return std::nullopt;
  for (const char c : release) {
    if (!is_key_character(c) && c != '~') return std::nullopt;
  }
  return release;
}

}  // namespace kdrift
