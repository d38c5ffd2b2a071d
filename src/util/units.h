#pragma once
// Sizes and durations as people write them in fio job files and on the command line: "4k",
// "128KiB", "32m", "1g"; "500ms", "5s", "1m", "2h". Binary multiples, as fio uses them.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kdrift {

// Bytes. A bare number is bytes; k/m/g/t with an optional "b", "ib" or "iB" are powers of 1024.
// nullopt on anything else, on zero-sized units and on overflow.
std::optional<uint64_t> parse_size(std::string_view text);

// A bare number is seconds (fio's convention); suffixes us, ms, s, m, h.
std::optional<std::chrono::microseconds> parse_duration(std::string_view text);

// The shortest exact spelling: 4096 -> "4k", 1048576 -> "1m", 1000 -> "1000".
std::string format_size(uint64_t bytes);
// For a message: the largest binary unit the size is a whole number of ("4 GiB", "128 MiB"), else
// MiB rounded up from 1 MiB on ("4097 MiB"), else bytes ("100 bytes").
std::string describe_bytes(uint64_t bytes);
// For an estimate, where the last byte does not matter: whole MiB (rounded up) below 10 GiB,
// GiB with one decimal from there ("165 MiB", "55.9 GiB").
std::string approximate_bytes(uint64_t bytes);
// 1500000us -> "1.5s", 250000us -> "250ms".
std::string format_duration(std::chrono::microseconds duration);

// part / whole, 0 when whole is 0 (an average over nothing).
inline double ratio(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace kdrift
