#include "kbuild/kconfig.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "util/gzip.h"
#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kPrefix = "CONFIG_";
constexpr std::string_view kNotSetPrefix = "# CONFIG_";
constexpr std::string_view kNotSetSuffix = " is not set";

bool all_of_digits(std::string_view text, bool hex) {
  if (text.empty()) return false;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (!(hex ? std::isxdigit(u) : std::isdigit(u))) return false;
  }
  return true;
}

bool valid_number(std::string_view value) {
  if (starts_with(value, "0x") || starts_with(value, "0X")) {
    return all_of_digits(value.substr(2), true);
  }
  if (starts_with(value, "-")) value.remove_prefix(1);
  return all_of_digits(value, false);
}

// Why a double-quoted value is not one kconfig writes (sym_escape_string_value escapes exactly
// '"' and '\'), or nullopt when it is.
std::optional<std::string> string_problem(std::string_view value) {
  for (size_t i = 1; i < value.size(); ++i) {
    if (value[i] == '\\') {
      if (i + 1 < value.size() && (value[i + 1] == '"' || value[i + 1] == '\\')) {
        ++i;
        continue;
      }
      return "an escape other than \\\" or \\\\ in a string";
    }
    if (value[i] == '"') {
      if (i + 1 == value.size()) return std::nullopt;
      return "text after a string's closing quote";
    }
  }
  return "an unterminated string";
}

std::optional<std::string> value_problem(std::string_view value) {
  if (value == "y" || value == "m" || value == "n") return std::nullopt;
  if (starts_with(value, "\"")) return string_problem(value);
  if (valid_number(value)) return std::nullopt;
  return "a value that is neither y, m, n, a number nor a double-quoted string";
}

std::optional<std::string> byte_problem(std::string_view line) {
  for (const char c : line) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0) return std::string("a NUL byte (binary data)");
    if ((u < 0x20 && c != '\t') || u == 0x7f) return "a control byte (binary data)";
  }
  return std::nullopt;
}

Error line_error(const std::string& source, size_t number, const std::string& why,
                 std::string_view shown) {
  return content_error(source + ":" + std::to_string(number) + ": " + why + ": " +
                       quote_value(shown) + "; not a kernel config");
}

// One line (its '\n' gone): an entry, nothing (a blank line or a comment), or why not.
Result<std::optional<KconfigValue>> parse_line(std::string_view raw, const std::string& source,
                                               size_t number) {
  std::string_view line = raw;  // a CRLF file's \r goes with the trailing blanks
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  if (const auto bad = byte_problem(line)) return line_error(source, number, *bad, line);
  if (trim(line).empty()) return std::optional<KconfigValue>();
  if (line.front() == '#') {
    if (!starts_with(line, kNotSetPrefix) ||
        line.size() < kNotSetPrefix.size() + kNotSetSuffix.size() ||
        line.substr(line.size() - kNotSetSuffix.size()) != kNotSetSuffix) {
      return std::optional<KconfigValue>();  // a header or a comment of the user's
    }
    const auto symbol = line.substr(kNotSetPrefix.size(),
                                    line.size() - kNotSetPrefix.size() - kNotSetSuffix.size());
    if (!valid_kconfig_symbol(symbol))
      return line_error(source, number, "a bad symbol name", symbol);
    return std::optional<KconfigValue>(KconfigValue{std::string(symbol), "n"});
  }
  if (!starts_with(line, kPrefix)) {
    return line_error(source, number,
                      "neither CONFIG_X=VALUE, '# CONFIG_X is not set' nor a comment", line);
  }
  const auto equals = line.find('=');
  if (equals == std::string_view::npos) {
    return line_error(source, number, "an assignment without '='", line);
  }
  const auto symbol = line.substr(kPrefix.size(), equals - kPrefix.size());
  if (!valid_kconfig_symbol(symbol)) return line_error(source, number, "a bad symbol name", symbol);
  const auto value = line.substr(equals + 1);
  if (const auto bad = value_problem(value)) return line_error(source, number, *bad, value);
  return std::optional<KconfigValue>(KconfigValue{std::string(symbol), std::string(value)});
}

}  // namespace

Result<Kconfig> Kconfig::parse(std::string_view text, const std::string& source) {
  if (text.size() > kMaxBytes) return size_limit_error(source, kMaxBytes);
  Kconfig config;
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.size() > kMaxLineBytes) {
      return content_error(source + ":" + std::to_string(number) + ": a line of " +
                           std::to_string(line.size()) + " bytes (at most " +
                           std::to_string(kMaxLineBytes) + "); not a kernel config");
    }
    auto entry = parse_line(line, source, number);
    if (!entry) return entry.error();
    if (*entry) config.set((*entry)->symbol, (*entry)->value);
  }
  if (config.entries_.empty()) {
    return content_error(source + ": no CONFIG_ assignment; not a kernel config");
  }
  return config;
}

Result<Kconfig> Kconfig::read(const std::string& path) {
  auto bytes = read_whole_file(path, kMaxBytes);
  if (!bytes) return bytes.error();
  if (starts_with(*bytes, "\x1f\x8b")) {
    auto inflated = gunzip(*bytes, path, kMaxBytes);
    if (!inflated) return inflated.error();
    return parse(*inflated, path);
  }
  return parse(*bytes, path);
}

std::optional<std::string> Kconfig::value(std::string_view symbol) const {
  const auto found = index_.find(symbol);
  if (found == index_.end()) return std::nullopt;
  return entries_[found->second].value;
}

void Kconfig::set(const std::string& symbol, const std::string& value) {
  const auto [found, added] = index_.try_emplace(symbol, entries_.size());
  if (added) {
    entries_.push_back({symbol, value});
  } else {
    entries_[found->second].value = value;
  }
}

std::string Kconfig::text() const {
  std::string text;
  for (const auto& entry : entries_) {
    if (entry.value == "n") {
      text += std::string(kNotSetPrefix) + entry.symbol + std::string(kNotSetSuffix) + "\n";
    } else {
      text += std::string(kPrefix) + entry.symbol + "=" + entry.value + "\n";
    }
  }
  return text;
}

bool Kconfig::operator==(const Kconfig& other) const {
  if (size() != other.size()) return false;
  for (const auto& entry : entries_) {
    if (other.value(entry.symbol) != entry.value) return false;
  }
  return true;
}

bool valid_kconfig_symbol(std::string_view symbol) {
  return !symbol.empty() && std::all_of(symbol.begin(), symbol.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::vector<KconfigChange> diff_configs(const Kconfig& good, const Kconfig& bad) {
  std::vector<KconfigChange> changes;
  for (const auto& entry : bad.entries()) {
    auto before = good.value(entry.symbol);
    if (before != entry.value) changes.push_back({entry.symbol, std::move(before), entry.value});
  }
  for (const auto& entry : good.entries()) {
    if (!bad.value(entry.symbol)) changes.push_back({entry.symbol, entry.value, std::nullopt});
  }
  return changes;
}

}  // namespace kdrift
