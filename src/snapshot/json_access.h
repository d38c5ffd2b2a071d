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

}  // namespace kdrift
