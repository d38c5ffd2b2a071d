#include "collect/kernel_config.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "collect/facts.h"
#include "util/gzip.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kNotSetSuffix = " is not set";

bool valid_symbol(std::string_view name) {
  if (!starts_with(name, "CONFIG_") || name.size() == 7) return false;
  for (const char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

Json config_value(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    std::string text;
    for (size_t i = 1; i + 1 < value.size(); ++i) {
      if (value[i] == '\\' && i + 2 < value.size()) ++i;  // Kconfig escapes \" and \\ only
      text += value[i];
    }
    return text;
  }
  if (value == "y" || value == "m" || value == "n") return std::string(value);
  if (!starts_with(value, "0x")) {
    if (const auto number = parse_int(value)) return *number;
  }
  return std::string(value);
}

}  // namespace

ParsedConfig parse_kernel_config(std::string_view text) {
  ParsedConfig parsed;
  // Line by line in place: a config has ten thousand lines, and a copy of each was a fifth of
  // the time a live capture spent on it.
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty()) continue;
    if (line.front() == '#') {
      // "# CONFIG_FOO is not set"; other comments are headers.
      if (line.size() > kNotSetSuffix.size() &&
          line.substr(line.size() - kNotSetSuffix.size()) == kNotSetSuffix) {
        const auto name = trim(line.substr(1, line.size() - 1 - kNotSetSuffix.size()));
        if (valid_symbol(name)) parsed.symbols[std::string(name)] = "n";
      }
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string_view::npos || !valid_symbol(line.substr(0, equals))) {
      ++parsed.malformed_lines;
      continue;
    }
    parsed.symbols[std::string(line.substr(0, equals))] = config_value(line.substr(equals + 1));
  }
  return parsed;
}

Json collect_kernel_config(const SysRoot& root, std::string_view release) {
  Json config = Json::object();
  std::string text;
  std::string source;
  if (auto packed = root.read("/proc/config.gz")) {
    if (auto inflated = gunzip(*packed, "/proc/config.gz")) {
      text = std::move(*inflated);
      source = "/proc/config.gz";
    } else {
      mark_unavailable(config, "/proc/config.gz", inflated.error());
    }
  } else {
    mark_unavailable(config, "/proc/config.gz", packed.error());
  }
  if (source.empty()) {
    const std::string boot_config = "/boot/config-" + std::string(release);
    if (release.empty()) {
      mark_unavailable(config, "/boot/config-<release>", "kernel release unknown");
    } else if (auto plain = root.read(boot_config)) {
      text = std::move(*plain);
      source = boot_config;
    } else {
      mark_unavailable(config, boot_config, plain.error());
    }
  }
  // Without a config every symbol is unknown, never "not set": symbols is named unavailable.
  if (source.empty()) {
    mark_unavailable(config, "symbols", "no kernel config was readable");
    return config;
  }
  auto parsed = parse_kernel_config(text);
  if (parsed.symbols.empty()) {
    mark_unavailable(config, source, source + ": no CONFIG_ lines: not a kernel config");
    mark_unavailable(config, "symbols", source + " is not a kernel config");
    return config;
  }
  config["source"] = source;
  config["symbols"] = std::move(parsed.symbols);
  if (parsed.malformed_lines > 0) config["malformed_lines"] = parsed.malformed_lines;
  return config;
}

}  // namespace kdrift
