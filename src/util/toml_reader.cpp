#include "util/toml_reader.h"

#include <sstream>

#include "util/input_file.h"
#include "util/toml_nesting.h"

namespace kdrift {

Result<std::string> read_toml_file(const std::string& path) {
  return read_whole_file(path, kMaxTomlBytes);
}

Result<toml::table> TomlReader::parse(std::string_view text) const {
  if (text.size() > kMaxTomlBytes) return size_limit_error(source_, kMaxTomlBytes);
  if (auto nesting = check_toml_nesting(text, source_, kMaxTomlDepth); !nesting) {
    return nesting.error();
  }
  try {
    return toml::parse(text, source_);
  } catch (const toml::parse_error& problem) {
    return make_error(EINVAL, source_ + ":" + std::to_string(problem.source().begin.line) + ":" +
                                  std::to_string(problem.source().begin.column) + ": " +
                                  std::string(problem.description()));
  }
}

Error TomlReader::error_at(const toml::node& node, const std::string& what) const {
  return make_error(EINVAL, source_ + ":" + std::to_string(node.source().begin.line) + ": " + what);
}

Error TomlReader::error(const std::string& what) const {
  return make_error(EINVAL, source_ + ": " + what);
}

Status TomlReader::check_keys(const toml::table& table, const std::set<std::string_view>& allowed,
                              const std::string& where) const {
  for (const auto& [key, node] : table) {
    if (allowed.count(key.str()) == 0) {
      return error_at(node, where + "unknown key \"" + std::string(key.str()) + "\"");
    }
  }
  return ok_status();
}

std::string TomlReader::describe(const toml::node& node) {
  std::ostringstream out;
  if (const auto* text = node.as_string()) {
    out << '"' << text->get() << '"';
  } else {
    node.visit([&](const auto& value) { out << value; });
  }
  return out.str();
}

}  // namespace kdrift
