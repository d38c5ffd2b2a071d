#include "snapshot/json_access.h"

#include <cmath>
#include <limits>

namespace kdrift {
namespace {

std::optional<uint64_t> count_of(const Json* value) {
  if (value == nullptr || !value->is_number()) return std::nullopt;
  if (value->is_number_unsigned()) return value->get<uint64_t>();
  if (value->is_number_integer()) {
    const auto whole = value->get<int64_t>();
    return whole >= 0 ? std::optional(static_cast<uint64_t>(whole)) : std::nullopt;
  }
  const double number = value->get<double>();
  // 2^64 is exactly representable; every double below it converts (fraction dropped).
  if (!(number >= 0 && number < 18446744073709551616.0)) return std::nullopt;
  return static_cast<uint64_t>(number);
}

}  // namespace

const Json* member(const Json& node, std::string_view key) {
  if (!node.is_object()) return nullptr;
  const auto found = node.find(key);
  return found == node.end() ? nullptr : &*found;
}

const Json* object_member(const Json& node, std::string_view key) {
  const Json* found = member(node, key);
  return found != nullptr && found->is_object() ? found : nullptr;
}

const Json* array_member(const Json& node, std::string_view key) {
  const Json* found = member(node, key);
  return found != nullptr && found->is_array() ? found : nullptr;
}

std::string text_member(const Json& node, std::string_view key, std::string fallback) {
  const Json* found = member(node, key);
  return found != nullptr && found->is_string() ? found->get<std::string>() : fallback;
}

std::optional<double> number_member(const Json& node, std::string_view key) {
  const Json* found = member(node, key);
  if (found == nullptr || !found->is_number()) return std::nullopt;
  return found->get<double>();
}

std::optional<int64_t> integer_member(const Json& node, std::string_view key) {
  const Json* found = member(node, key);
  if (found == nullptr) return std::nullopt;
  if (found->is_number_integer() && !found->is_number_unsigned()) return found->get<int64_t>();
  if (found->is_number_unsigned()) {
    const auto value = found->get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(value);
  }
  if (!found->is_number_float()) return std::nullopt;
  const double value = found->get<double>();
  // 2^63 is exactly representable; everything below it that is whole converts exactly.
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0) ||
      value != std::floor(value)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

std::optional<uint64_t> count_member(const Json& node, std::string_view key) {
  return count_of(member(node, key));
}

const Json* at(const Json& root, std::initializer_list<std::string_view> keys) {
  const Json* node = &root;
  for (const auto key : keys) {
    node = member(*node, key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

const Json* object_at(const Json& root, std::initializer_list<std::string_view> keys) {
  const Json* found = at(root, keys);
  return found != nullptr && found->is_object() ? found : nullptr;
}

const Json& array_at(const Json& root, std::initializer_list<std::string_view> keys) {
  static const Json kNone = Json::array();
  const Json* found = at(root, keys);
  return found != nullptr && found->is_array() ? *found : kNone;
}

std::optional<std::string> string_at(const Json& root,
                                     std::initializer_list<std::string_view> keys) {
  const Json* found = at(root, keys);
  if (found == nullptr || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

std::optional<double> number_at(const Json& root, std::initializer_list<std::string_view> keys) {
  const Json* found = at(root, keys);
  if (found == nullptr || !found->is_number()) return std::nullopt;
  const double number = found->get<double>();
  return std::isfinite(number) ? std::optional(number) : std::nullopt;
}

std::optional<uint64_t> count_at(const Json& root, std::initializer_list<std::string_view> keys) {
  return count_of(at(root, keys));
}

std::vector<double> numbers_in(const Json* list) {
  std::vector<double> values;
  if (list == nullptr || !list->is_array()) return values;
  for (const auto& item : *list) {
    if (item.is_number()) values.push_back(item.get<double>());
  }
  return values;
}

}  // namespace kdrift
