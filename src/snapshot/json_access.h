#pragma once
// Reading snapshots that came from elsewhere: any member may be missing or of another type (an
// older version, a hand edit, a truncated file). These never throw; a wrong type reads as absent.

#include <cstdint>
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

// The numbers of a list (other items skipped); empty when list is null or not an array.
std::vector<double> numbers_in(const Json* list);

}  // namespace kdrift
