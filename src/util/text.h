#pragma once
// Parsing helpers for the text formats of /proc and /sys. Strict: a value either parses fully or
// is reported as not parsing, so an odd sysfs value never turns into a silent zero.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift {

std::string_view trim(std::string_view text);
std::vector<std::string> split(std::string_view text, char separator);
// Splits on runs of spaces and tabs, dropping empty fields.
std::vector<std::string> split_whitespace(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::vector<std::string> split_lines(std::string_view text);

bool starts_with(std::string_view text, std::string_view prefix);

// The limit largest counts, largest first (a tie: the name that sorts last first), as
// "name count, name count": {{3, "SND"}, {5, "NET"}} -> "NET 5, SND 3". Counts print whole.
std::string largest_counts(std::vector<std::pair<double, std::string>> counts, size_t limit);

// Whole-string decimal (or 0x-prefixed hex) integer; nullopt on anything else or overflow.
std::optional<int64_t> parse_int(std::string_view text);
std::optional<uint64_t> parse_uint(std::string_view text);
std::optional<double> parse_double(std::string_view text);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt on malformed input. Empty text is an empty list.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// Text in double quotes for an error message: cut to 80 bytes, bytes outside printable ASCII as
// \xNN, so a garbage or huge file neither floods the snapshot nor breaks its UTF-8.
std::string quote_value(std::string_view text);

// "[mq-deadline] kyber bfq none" (block scheduler, transparent hugepages): every choice, and the
// bracketed one in force. nullopt unless exactly one word is bracketed.
struct BracketedChoice {
  std::string active;
  std::vector<std::string> available;
};
std::optional<BracketedChoice> parse_bracketed_choice(std::string_view text);

// A path as the kernel writes it in /proc/self/mountinfo and /proc/swaps (mangle_path: space,
// tab, newline and backslash as \ooo), with the escapes undone.
std::string unescape_octal(std::string_view text);

// The value of "Key:<spaces>value" lines (/proc/self/status, /proc/meminfo, /proc/cpuinfo).
std::optional<std::string> find_colon_field(std::string_view text, std::string_view key);

// The length of the well-formed UTF-8 sequence at text[at] (1 for ASCII), or 0 when the bytes
// there are not one character of text: a stray continuation byte, an overlong form, a surrogate,
// past U+10FFFF, cut short, or a C1 control (U+0080-U+009F).
size_t utf8_text_length(std::string_view text, size_t at);

// A value from an input (a snapshot, a rule file, a fio import), made inert for a terminal:
// every control character (C0, newline and tab included, since a value is one line; DEL; the C1
// code points U+0080-U+009F) and every byte that is not part of valid UTF-8 shown as \xNN, so
// a value can neither move the cursor, retitle the window nor start a line that looks like
// kdrift's own. Other text, non-ASCII letters included, is unchanged.
std::string terminal_safe(std::string_view text);

}  // namespace kdrift
