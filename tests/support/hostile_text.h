#pragma once
// Values an attacker writes into a snapshot, a rule file or a fio import, for the renderers'
// tests: a terminal escape that retitles the window and clears the screen, and markup with a
// line break that would open a new markdown table row.

#include <string>
#include <string_view>
#include <vector>

namespace kdrift::testing {

inline constexpr std::string_view kTerminalAttack =
    "\x1b]0;pwned\x07\x1b[2J\xc2\x9b"
    "31m";
inline constexpr std::string_view kMarkupAttack = "<img src=x onerror=alert(1)>\n| injected |`x";

inline std::string hostile_value(std::string_view name) {
  return std::string(name) + std::string(kTerminalAttack) + std::string(kMarkupAttack);
}

// The bytes in text that a terminal acts on: C0 but newline, DEL, and C1 as UTF-8 (U+0080-U+009F).
inline std::vector<unsigned> control_bytes(std::string_view text) {
  std::vector<unsigned> found;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = byte == 0xc2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if ((byte < 0x20 && byte != '\n') || byte == 0x7f || c1) found.push_back(byte);
  }
  return found;
}

}  // namespace kdrift::testing
