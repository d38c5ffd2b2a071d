#pragma once
// A kernel .config as data, in file order: what a config bisect splits, applies and hands to
// `make olddefconfig`. Strict where collect/kernel_config.h is tolerant: a file given to a bisect
// as a config either is one, symbol by symbol, or is refused with the line that says why, since
// a garbled half-config silently rewritten by kconfig would bisect the wrong thing.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct KconfigValue {
  std::string symbol;  // without CONFIG_
  // "y", "m", "n" (also for "# CONFIG_X is not set"), a number as written (decimal, or hex with
  // 0x), or a double-quoted string kept verbatim, quotes and escapes included.
  std::string value;
};

class Kconfig {
 public:
  // The largest config read() accepts, and the longest line parse() does.
  static constexpr std::size_t kMaxBytes = std::size_t{16} << 20;
  static constexpr std::size_t kMaxLineBytes = std::size_t{64} << 10;

  // Blank lines and comments are tolerated; every other line is "CONFIG_X=VALUE", with VALUE
  // y, m, n, a number or a double-quoted string whose only escapes are \" and \\. Refused, with
  // source and line: a NUL or other control byte, a line over kMaxLineBytes, a symbol outside
  // [A-Za-z0-9_], any other value, text over kMaxBytes, and text with no assignment at all.
  // A symbol assigned twice keeps its first place and its last value: kconfig's confdata.c
  // (conf_read_simple) warns "override: reassigning to symbol" and lets the later line win, which
  // is what merge_config.sh and config fragments rely on.
  static Result<Kconfig> parse(std::string_view text, const std::string& source);
  // A regular file (util/input_file.h, bounded by kMaxBytes), plain or gzip'd (/proc/config.gz),
  // parsed as above; errors name path.
  static Result<Kconfig> read(const std::string& path);

  // "n" for "is not set"; nullopt when the file does not mention the symbol, which kconfig reads
  // as "take the default", not as n.
  std::optional<std::string> value(std::string_view symbol) const;
  // Replaces the symbol's value in place, or appends it. symbol and value as parse() accepts
  // them (taken from another Kconfig): set() does not check them again.
  void set(const std::string& symbol, const std::string& value);
  // A .config make accepts: one line per entry, n written "# CONFIG_X is not set"; parse() of it
  // gives these entries back.
  std::string text() const;
  std::size_t size() const { return entries_.size(); }
  const std::vector<KconfigValue>& entries() const { return entries_; }

  // The same symbols with the same values, in whatever order: what kconfig reads alike.
  bool operator==(const Kconfig& other) const;

 private:
  std::vector<KconfigValue> entries_;
  std::map<std::string, std::size_t, std::less<>> index_;  // symbol -> its place in entries_
};

// A symbol's name as kconfig spells it (without CONFIG_): [A-Za-z0-9_]+.
bool valid_kconfig_symbol(std::string_view symbol);

// A symbol whose value differs between two configs; nullopt where a config does not mention it.
struct KconfigChange {
  std::string symbol;
  std::optional<std::string> from, to;
};

// Every symbol whose value differs: in bad's file order, then those only good mentions, in
// good's order.
std::vector<KconfigChange> diff_configs(const Kconfig& good, const Kconfig& bad);

}  // namespace kdrift
