#pragma once
// How the model's from_json functions take members out of a JSON object: a member is taken only
// when it has the kind the schema gives it, and taking erases it, so what is left of the object
// is exactly what the model did not type (kept verbatim, so that to_json gives the input back).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift::json_fields {

using Json = nlohmann::json;

// Counts are unsigned; a non-negative signed integer (built in memory, never parsed) counts too.
inline std::optional<uint64_t> as_count(const Json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    return static_cast<uint64_t>(value.get<int64_t>());
  }
  return std::nullopt;
}

// Measures (rates, means, seconds) are written as floats; any number reads as one.
inline std::optional<double> as_measure(const Json& value) {
  if (value.is_number()) return value.get<double>();
  return std::nullopt;
}

inline std::optional<std::string> as_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return std::nullopt;
}

// A list whose every item converts; a list with one that does not is not taken.
template <typename Convert>
auto as_list(const Json& value, Convert convert)
    -> std::optional<std::vector<typename decltype(convert(value))::value_type>> {
  if (!value.is_array()) return std::nullopt;
  std::vector<typename decltype(convert(value))::value_type> out;
  out.reserve(value.size());
  for (const auto& item : value) {
    auto converted = convert(item);
    if (!converted) return std::nullopt;
    out.push_back(std::move(*converted));
  }
  return out;
}

// The member converted, erased from rest; absent (and left in rest) when missing or of another
// kind. rest must be an object.
template <typename Convert>
auto take(Json& rest, std::string_view key, Convert convert) -> decltype(convert(rest)) {
  const auto it = rest.find(std::string(key));
  if (it == rest.end()) return std::nullopt;
  auto value = convert(*it);
  if (value) rest.erase(it);
  return value;
}

}  // namespace kdrift::json_fields
