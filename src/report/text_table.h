#pragma once
// Helpers for the text reports: values as text, and fixed-width tables.

#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/json_access.h"

namespace kdrift {

// A document value as report text, made inert for a terminal (terminal_safe): the values of
// snapshots, rule files and fio imports are whatever their authors wrote.
std::string text_of(const Json& value);
// The value as text exactly as the document has it (missing when there is none), for formats
// that escape it their own way (HTML, fio's JSON) and for text reflowed before it is shown.
std::string raw_text_of(const Json* value, std::string_view missing = "");

// value with a fixed number of decimals: fixed(3.14159, 2) -> "3.14".
std::string fixed(double value, int decimals);
// Up to two decimals, trailing zeros dropped: 1.50 -> "1.5", 250.00 -> "250".
std::string trimmed(double value);

// How a count (IOPS) is shortened with a k/M/G suffix.
enum class CountStyle {
  // Table columns: k from 10,000 and M, with fixed decimals so a column reads evenly:
  // 9999 -> "9999", 45678 -> "45.7k", 1234567 -> "1.23M". A negative value is printed whole.
  kColumn,
  // Axis ticks, round values: k from 1,000, M and G, shortest: 1500 -> "1.5k", 2e6 -> "2M".
  kTick,
};
std::string count_text(double value, CountStyle style = CountStyle::kColumn);

// A [low, high] interval (a ratio's ci95) as "low–high" with three decimals; "-" when value is
// not a pair of numbers.
std::string interval_text(const Json* value);

std::string text_at(const Json& root, std::initializer_list<std::string_view> keys,
                    std::string_view missing = "?");

// Fixed-width columns: what a storage engineer scans down. Cells are shown terminal_safe: they
// hold object keys (device names, PCI addresses) that no text_of saw.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.size() == 1; }
  void render(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace kdrift
