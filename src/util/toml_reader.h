#pragma once
// Reading TOML data files (profiles/, checks/) with errors that carry "<file>:<line>: <what>",
// the shape editors and CI logs link to. toml++ throws on syntax errors; parse() turns that into
// an Error value like every other content problem.

#include <toml++/toml.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kdrift {

class TomlReader {
 public:
  explicit TomlReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  Result<toml::table> parse(std::string_view text) const;

  Error error_at(const toml::node& node, const std::string& what) const;
  Error error(const std::string& what) const;

  Status check_keys(const toml::table& table, const std::set<std::string_view>& allowed,
                    const std::string& where) const;

  // A scalar or a list of scalars, each turned into T by convert (nullopt = invalid).
  template <typename T, typename Convert>
  Result<std::vector<T>> list(const toml::node& node, const std::string& key,
                              Convert convert) const {
    std::vector<T> values;
    auto one = [&](const toml::node& item) -> Status {
      auto value = convert(item);
      if (!value) return error_at(item, key + ": invalid value " + describe(item));
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
  std::string source_;
};

}  // namespace kdrift
