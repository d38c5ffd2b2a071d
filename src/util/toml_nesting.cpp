#include "util/toml_nesting.h"

#include <optional>

namespace kdrift {
namespace {

// A recursive descent whose recursion is bounded by max_depth: every call one level deeper is
// checked first. Each step returns false to stop: too deep (error_ set) or text it does not
// understand (error_ empty; the parser says what is wrong there).
class NestingScan {
 public:
  NestingScan(std::string_view text, const std::string& source, size_t max_depth)
      : text_(text), source_(source), max_depth_(max_depth) {}

  Status run() {
    size_t table_depth = 0;  // of the last [header]
    for (;;) {
      skip_blank(/*newlines=*/true);
      if (at_end()) return ok_status();
      bool understood = true;
      if (peek() == '[') {
        const bool array_table = peek(1) == '[';
        advance(array_table ? 2 : 1);
        table_depth = key_parts() + (array_table ? 1 : 0);
        understood = within(table_depth);
      } else {
        understood = key_value(table_depth);
      }
      if (!understood) return error_ ? Status(*error_) : ok_status();
      skip_to_line_end();
    }
  }

 private:
  bool at_end() const { return position_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return position_ + ahead < text_.size() ? text_[position_ + ahead] : '\0';
  }
  void advance(size_t count = 1) {
    for (; count > 0 && !at_end(); --count) {
      if (text_[position_++] == '\n') ++line_;
    }
  }

  bool within(size_t depth) {
    if (depth <= max_depth_) return true;
    error_ = content_error(source_ + ":" + std::to_string(line_) + ": nested deeper than " +
                           std::to_string(max_depth_) + " levels");
    return false;
  }

  void skip_to_line_end() {
    while (!at_end() && peek() != '\n')
      advance();
  }

  // Spaces, tabs, comments and, where the grammar allows them, line breaks.
  void skip_blank(bool newlines) {
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
        advance();
      } else if (c == '#') {
        skip_to_line_end();
      } else {
        return;
      }
    }
  }

  // At a quote: "basic", 'literal', """multi-line basic""" or '''multi-line literal'''. An
  // unterminated string stops at the line break or the end, where the parser reports it.
  void skip_string() {
    const char quote = peek();
    const bool escapes = quote == '"';
    if (peek(1) == quote && peek(2) == quote) {
      advance(3);
      while (!at_end()) {
        if (escapes && peek() == '\\') {
          advance(2);
        } else if (peek() == quote && peek(1) == quote && peek(2) == quote) {
          advance(3);
          // Up to two quotes of the content may sit right before the closing three.
          for (int extra = 0; extra < 2 && peek() == quote; ++extra)
            advance();
          return;
        } else {
          advance();
        }
      }
      return;
    }
    advance();
    while (!at_end() && peek() != '\n') {
      if (escapes && peek() == '\\') {
        advance(2);
      } else if (peek() == quote) {
        advance();
        return;
      } else {
        advance();
      }
    }
  }

  // A bare, quoted or dotted key, up to what ends it ('=' or ']' where valid): its parts.
  size_t key_parts() {
    size_t parts = 1;
    while (!at_end()) {
      const char c = peek();
      if (c == '"' || c == '\'') {
        skip_string();
      } else if (c == '.') {
        ++parts;
        advance();
      } else if (c == '=' || c == ']' || c == '[' || c == '{' || c == '}' || c == ',' ||
                 c == '\n' || c == '#') {
        return parts;
      } else {
        advance();
      }
    }
    return parts;
  }

  // key = value, the key's parts below depth.
  bool key_value(size_t depth) {
    const size_t parts = key_parts();
    if (peek() != '=') return false;
    advance();
    skip_blank(/*newlines=*/false);
    return value(depth + parts);
  }

  bool value(size_t depth) {
    if (!within(depth)) return false;
    if (peek() == '"' || peek() == '\'') {
      skip_string();
      return true;
    }
    if (peek() == '[') {
      advance();
      return items(']', [&] { return value(depth + 1); });
    }
    if (peek() == '{') {
      advance();
      return items('}', [&] { return key_value(depth); });
    }
    // Numbers, booleans, dates and times ("1979-05-27 07:32:00" holds a space).
    while (!at_end() && peek() != ',' && peek() != ']' && peek() != '}' && peek() != '#' &&
           peek() != '\n') {
      advance();
    }
    return true;
  }

  // After '[' or '{': the items up to closer, each read by item (a value one level below an
  // array; a key = value pair, its key's parts below an inline table).
  template <typename Item>
  bool items(char closer, Item item) {
    for (;;) {
      skip_blank(/*newlines=*/true);
      if (peek() == closer) {
        advance();
        return true;
      }
      if (at_end() || !item()) return false;
      skip_blank(/*newlines=*/true);
      if (peek() == ',') {
        advance();
      } else if (peek() != closer) {
        return false;
      }
    }
  }

  std::string_view text_;
  const std::string& source_;
  size_t max_depth_;
  size_t position_ = 0;
  size_t line_ = 1;
  std::optional<Error> error_;
};

}  // namespace

Status check_toml_nesting(std::string_view text, const std::string& source, size_t max_depth) {
  return NestingScan(text, source, max_depth).run();
}

}  // namespace kdrift
