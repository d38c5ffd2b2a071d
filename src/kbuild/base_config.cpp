#include "kbuild/base_config.h"

#include <string>
#include <vector>

#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kPrefix = "CONFIG_";

// The symbol's name after CONFIG_ at the start of text, and its length (0 when none).
size_t symbol_length(std::string_view text) {
  if (!starts_with(text, kPrefix)) return 0;
  size_t length = kPrefix.size();
  while (length < text.size()) {
    const char c = text[length];
    const bool word =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) break;
    ++length;
  }
  return length > kPrefix.size() ? length : 0;
}

// Whether a whole line of the file's first bytes is a config line.
bool shows_config(std::string_view head, bool cut) {
  std::vector<std::string> lines = split_lines(head);
  if (cut && !lines.empty()) lines.pop_back();
  for (const std::string& line : lines) {
    if (is_kernel_config_line(trim(line))) return true;
  }
  return false;
}

}  // namespace

bool is_kernel_config_line(std::string_view line) {
  if (const size_t length = symbol_length(line); length > 0) {
    return length < line.size() && line[length] == '=';
  }
  constexpr std::string_view kUnsetPrefix = "# ";
  constexpr std::string_view kUnsetSuffix = " is not set";
  if (!starts_with(line, kUnsetPrefix)) return false;
  const std::string_view rest = line.substr(kUnsetPrefix.size());
  const size_t length = symbol_length(rest);
  return length > 0 && rest.substr(length) == kUnsetSuffix;
}

Result<BaseConfig> read_base_config(const std::string& path) {
  auto text = read_whole_file(path, kMaxBaseConfigBytes);
  if (!text) return text.error();
  const std::string_view head = std::string_view(*text).substr(0, kBaseConfigSniffBytes);
  if (head.find('\0') != std::string_view::npos) {
    return content_error(path + " is not a kernel config (binary data)");
  }
  if (!shows_config(head, head.size() < text->size())) {
    return content_error(path + " is not a kernel config (no CONFIG_ line in its first " +
                         std::to_string(kBaseConfigSniffBytes >> 10) + " KiB)");
  }
  BaseConfig config;
  for (const std::string& raw : split_lines(*text)) {
    const std::string_view line = trim(raw);
    if (!is_kernel_config_line(line) || line.front() == '#') continue;
    const std::string_view value = line.substr(line.find('='));
    config.builtin += static_cast<int>(value == "=y");
    config.modules += static_cast<int>(value == "=m");
    config.debug_info = config.debug_info || line == "CONFIG_DEBUG_INFO=y";
  }
  config.path = path;
  config.text = std::move(*text);
  return config;
}

}  // namespace kdrift
