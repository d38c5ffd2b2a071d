#include "rules/rule.h"

#include <algorithm>

#include "util/text.h"

namespace kdrift {
namespace {

// sysfs and the command line give "1" where a rule says 1: compare numbers by value and a
// number with its text as equal.
std::optional<double> as_number(const Json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_boolean()) return value.get<bool>() ? 1.0 : 0.0;
  if (value.is_string()) return parse_double(value.get<std::string>());
  return std::nullopt;
}

bool loosely_equal(const Json& x, const Json& y) {
  if (x.is_string() && y.is_string()) return x == y;
  if ((x.is_number() || x.is_string()) && (y.is_number() || y.is_string())) {
    const auto nx = as_number(x);
    const auto ny = as_number(y);
    return nx && ny && *nx == *ny;
  }
  return x == y;
}

bool equals_any(const Json& value, const Json& operand) {
  if (!operand.is_array()) return loosely_equal(value, operand);
  return std::any_of(operand.begin(), operand.end(),
                     [&](const Json& item) { return loosely_equal(value, item); });
}

bool is_empty(const Json& value) {
  return value.is_null() ||
         ((value.is_array() || value.is_object() || value.is_string()) && value.empty());
}

}  // namespace

std::string_view severity_name(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "info";
}

std::optional<Severity> parse_severity(std::string_view name) {
  if (name == "info") return Severity::kInfo;
  if (name == "warning") return Severity::kWarning;
  if (name == "critical") return Severity::kCritical;
  return std::nullopt;
}

std::optional<Relevance> parse_relevance(std::string_view name) {
  if (name == "any") return Relevance::kAny;
  if (name == "high-iodepth") return Relevance::kHighIodepth;
  if (name == "low-iodepth") return Relevance::kLowIodepth;
  if (name == "sequential") return Relevance::kSequential;
  if (name == "polled") return Relevance::kPolled;
  if (name == "writes") return Relevance::kWrites;
  return std::nullopt;
}

bool Condition::holds(const Json* value) const {
  if (op == Op::kExists) return (value != nullptr) == operand.get<bool>();
  if (value == nullptr) return false;
  switch (op) {
    case Op::kEquals:
      return loosely_equal(*value, operand);
    case Op::kDiffers:
      return !loosely_equal(*value, operand);
    case Op::kIn:
      return equals_any(*value, operand);
    case Op::kNotIn:
      return !equals_any(*value, operand);
    case Op::kAbove:
    case Op::kBelow:
    case Op::kAtLeast:
    case Op::kAtMost: {
      const auto number = as_number(*value);
      if (!number) return false;
      const double limit = operand.get<double>();
      if (op == Op::kAbove) return *number > limit;
      if (op == Op::kBelow) return *number < limit;
      if (op == Op::kAtLeast) return *number >= limit;
      return *number <= limit;
    }
    case Op::kStartsWith:
      return value->is_string() &&
             std::any_of(operand.begin(), operand.end(), [&](const Json& prefix) {
               return starts_with(value->get<std::string>(), prefix.get<std::string>());
             });
    case Op::kNotEmpty:
      return !is_empty(*value) == operand.get<bool>();
    case Op::kExists:
    case Op::kChanged:
    case Op::kIncreased:
    case Op::kDecreased:
      return false;
  }
  return false;
}

bool Condition::holds(const Json* a, const Json* b) const {
  if (op == Op::kChanged) {
    if (a == nullptr || b == nullptr) return a != b;
    return !loosely_equal(*a, *b);
  }
  if (a == nullptr || b == nullptr) return false;
  const auto x = as_number(*a);
  const auto y = as_number(*b);
  if (!x || !y) return false;
  return op == Op::kIncreased ? *y > *x : op == Op::kDecreased && *y < *x;
}

bool Match::compares_sides() const {
  return std::any_of(conditions.begin(), conditions.end(),
                     [](const Condition& condition) { return condition.compares_sides(); });
}

}  // namespace kdrift
