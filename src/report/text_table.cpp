#include "report/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

#include "util/text.h"

namespace kdrift {

std::string fixed(double value, int decimals) {
  char text[64];
  (void)std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string trimmed(double value) {
  char text[48];
  (void)std::snprintf(text, sizeof text, "%.2f", value);
  std::string out = text;
  while (out.back() == '0')
    out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out == "-0" ? "0" : out;
}

std::string count_text(double value, CountStyle style) {
  struct Unit {
    double from;
    double size;
    const char* suffix;
    int column_decimals;
  };
  static constexpr Unit kColumn[] = {{1e6, 1e6, "M", 2}, {1e4, 1e3, "k", 1}};
  static constexpr Unit kTick[] = {{1e9, 1e9, "G", 0}, {1e6, 1e6, "M", 0}, {1e3, 1e3, "k", 0}};
  const bool tick = style == CountStyle::kTick;
  for (const Unit& unit : tick ? std::span<const Unit>(kTick) : std::span<const Unit>(kColumn)) {
    if ((tick ? std::abs(value) : value) < unit.from) continue;
    const double scaled = value / unit.size;
    return (tick ? trimmed(scaled) : fixed(scaled, unit.column_decimals)) + unit.suffix;
  }
  return tick ? trimmed(value) : fixed(value, 0);
}

std::string raw_text_of(const Json* value, std::string_view missing) {
  if (value == nullptr) return std::string(missing);
  if (value->is_string()) return value->get<std::string>();
  return value->dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string text_of(const Json& value) {
  return terminal_safe(raw_text_of(&value));
}

std::string text_at(const Json& root, std::initializer_list<std::string_view> keys,
                    std::string_view missing) {
  const Json* value = at(root, keys);
  return value != nullptr ? text_of(*value) : std::string(missing);
}

void Table::render(std::ostream& out) const {
  std::vector<std::vector<std::string>> rows = rows_;
  for (auto& row : rows) {
    for (auto& cell : row)
      cell = terminal_safe(cell);
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    out << "  ";
    for (size_t i = 0; i < row.size(); ++i) {
      out << row[i];
      if (i + 1 < row.size()) out << std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << "\n";
  }
}

std::string interval_text(const Json* value) {
  if (value == nullptr || !value->is_array() || value->size() != 2 || !(*value)[0].is_number() ||
      !(*value)[1].is_number()) {
    return "-";
  }
  return fixed((*value)[0].get<double>(), 3) + "–" + fixed((*value)[1].get<double>(), 3);
}

}  // namespace kdrift
