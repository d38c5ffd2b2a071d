#pragma once
// Reading TOML data files (profiles/, checks/) with errors that carry "<file>:<line>: <what>",
// the shape editors and CI logs link to. toml++ throws on syntax errors; parse() turns that into
// an Error value like every other content problem. Rules and profiles are shared between people,
// so toml++ only sees a document within kMaxTomlBytes and kMaxTomlDepth (util/toml_nesting.h).

#include <toml++/toml.h>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kdrift {

// The built-in rules and profiles are 2-3 KB and nest 4 levels; these limits are hundreds of
// times the size and many times the depth of any real file, and keep toml++ (which stops at 256
// nested values but recurses per dotted key part and table) far from the end of the stack.
inline constexpr size_t kMaxTomlBytes = size_t{1} << 20;
inline constexpr size_t kMaxTomlDepth = 32;

// A TOML file (or standard input for "-") read whole, within kMaxTomlBytes.
Result<std::string> read_toml_file(const std::string& path);

class TomlReader {
 public:
  explicit TomlReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  // Refuses text over kMaxTomlBytes or nested deeper than kMaxTomlDepth before parsing it.
  Result<toml::table> parse(std::string_view text) const;

  Error error_at(const toml::node& node, const std::string& what) const;
  Error error(const std::string& what) const;

  Status check_keys(const toml::table& table, const std::set<std::string_view>& allowed,
                    const std::string& where) const;

  // A scalar or a list of scalars, each turned into T by convert: an std::optional (nullopt =
  // invalid) or a Result, whose error says what a valid value is.
  template <typename T, typename Convert>
  Result<std::vector<T>> list(const toml::node& node, const std::string& key,
                              Convert convert) const {
    std::vector<T> values;
    auto one = [&](const toml::node& item) -> Status {
      auto value = convert(item);
      if (!value) return error_at(item, key + ": invalid value " + describe(item) + why(value));
      values.push_back(*value);
      return ok_status();
    };
    if (const auto* array = node.as_array()) {
      if (array->empty()) return error_at(node, key + ": empty list");
      for (const auto& item : *array) {
        if (auto status = one(item); !status) return status.error();
      }
    } else if (auto status = one(node); !status) {
      return status.error();
    }
    return values;
  }

  template <typename T, typename Convert>
  Result<T> single(const toml::node& node, const std::string& key, Convert convert) const {
    auto values = list<T>(node, key, convert);
    if (!values) return values.error();
    if (values->size() != 1) return error_at(node, key + ": expected one value, not a list");
    return values->front();
  }

  // A value as the user wrote it, for error messages: strings quoted.
  static std::string describe(const toml::node& node);

 private:
  template <typename T>
  static std::string why(const std::optional<T>&) {
    return "";
  }
  template <typename T>
  static std::string why(const Result<T>& refused) {
    return ": " + refused.error().describe();
  }

  std::string source_;
};

}  // namespace kdrift
