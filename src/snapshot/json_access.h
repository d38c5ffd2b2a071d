#pragma once
// Reading snapshots that came from elsewhere: any member may be missing or of another type (an
// older version, a hand edit, a truncated file). These never throw; a wrong type reads as absent.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"

namespace kdrift {

// The member, or nullptr when node is not an object or has no such key.
const Json* member(const Json& node, std::string_view key);
// The member when it is of the wanted kind, else nullptr.
const Json* object_member(const Json& node, std::string_view key);
const Json* array_member(const Json& node, std::string_view key);

std::string text_member(const Json& node, std::string_view key, std::string fallback = {});
std::optional<double> number_member(const Json& node, std::string_view key);
// A whole number that fits int64_t (an integer, or a float with no fraction); anything else,
// 1e84 included, is absent: converting it would be undefined behaviour.
std::optional<int64_t> integer_member(const Json& node, std::string_view key);

// A count: a whole number from 0 below 2^64, a float's fraction dropped; a negative number and
// one past uint64_t (1e50) read as absent, since converting those would be undefined behaviour.
std::optional<uint64_t> count_member(const Json& node, std::string_view key);

// The same reads at a path of object keys ({"probe", "jobs"}), for documents read deep down.
// The value, or nullptr when a step is missing or not an object.
const Json* at(const Json& root, std::initializer_list<std::string_view> keys);
const Json* object_at(const Json& root, std::initializer_list<std::string_view> keys);
// The array, or an empty one when it is missing or something else: a reader iterates it.
const Json& array_at(const Json& root, std::initializer_list<std::string_view> keys);
std::optional<std::string> string_at(const Json& root,
                                     std::initializer_list<std::string_view> keys);
// A finite number: a document built in memory can hold a NaN or an infinity (a ratio over
// nothing) that JSON text cannot, and no reader wants one.
std::optional<double> number_at(const Json& root, std::initializer_list<std::string_view> keys);
std::optional<uint64_t> count_at(const Json& root, std::initializer_list<std::string_view> keys);

// The numbers of a list (other items skipped); empty when list is null or not an array.
std::vector<double> numbers_in(const Json* list);

// Strict reads for the model's from_json (model/), which must give back exactly what it read:
// a member is taken only when it has the kind the schema gives it (a count written 3.0 is not
// taken as 3), and taking erases it, so what is left of the object is what the model did not
// type and keeps verbatim.
namespace json_take {

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

}  // namespace json_take

}  // namespace kdrift
