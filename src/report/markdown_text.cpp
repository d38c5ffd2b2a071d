#include "report/markdown_text.h"

#include <algorithm>

#include "util/text.h"

namespace kdrift {
namespace {

// Line breaks and control characters are already \xNN (terminal_safe); HTML's three are
// entities, never markup.
bool append_entity(std::string& out, char c) {
  if (c == '<') out += "&lt;";
  if (c == '>') out += "&gt;";
  if (c == '&') out += "&amp;";
  return c == '<' || c == '>' || c == '&';
}

}  // namespace

std::string markdown_text(std::string_view value) {
  std::string out;
  for (const char c : terminal_safe(value)) {
    if (append_entity(out, c)) continue;
    if (std::string_view("\\`*_[]|~").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_code(std::string_view value) {
  std::string out = "`";
  for (const char c : terminal_safe(value)) {
    if (append_entity(out, c)) continue;
    out += c == '`' ? '\'' : c;
  }
  return out + "`";
}

std::string markdown_code_block(std::string_view text, std::string_view info) {
  std::string body;
  std::size_t longest = 0;
  std::size_t run = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string line = terminal_safe(text.substr(0, end));
    for (const char c : line) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    run = 0;
    body += line + "\n";
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  return fence + terminal_safe(info) + "\n" + body + fence + "\n";
}

}  // namespace kdrift
