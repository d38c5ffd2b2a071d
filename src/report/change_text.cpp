#include "report/change_text.h"

#include <algorithm>
#include <set>
#include <utility>

#include "report/text_table.h"
#include "util/text.h"

namespace kdrift {
namespace {

// A line a terminal shows without wrapping twice; an element's value gets about half of it.
constexpr size_t kMaxLine = 160;
constexpr size_t kMaxValue = 72;
constexpr size_t kMaxElements = 12;
// Snapshots nest a few levels; anything deeper is compared as one value.
constexpr int kMaxDepth = 8;

// Context kept before the first differing character, so the reader sees where it is.
constexpr size_t kContext = 24;

size_t character_start(const std::string& text, size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
    --at;
  return at;
}

// raw from byte start, at most kMaxValue bytes of it, marked where cut, safe to print.
std::string excerpt(const std::string& raw, size_t start) {
  std::string text = start > 0 ? "…" : "";
  if (raw.size() - start <= kMaxValue) return text + terminal_safe(raw.substr(start));
  const size_t end = character_start(raw, start + kMaxValue);
  return text + terminal_safe(raw.substr(start, end - start)) + "… (" + std::to_string(raw.size()) +
         " chars)";
}

// The two sides of a change as text; long ones are cut to the stretch where they start to
// differ (a command line that gained a parameter at its end shows that parameter).
std::pair<std::string, std::string> side_texts(const Json* a, const Json* b) {
  if (a == nullptr || b == nullptr) {
    return {a == nullptr ? "(absent)" : excerpt(raw_text_of(a, ""), 0),
            b == nullptr ? "(absent)" : excerpt(raw_text_of(b, ""), 0)};
  }
  const std::string raw_a = raw_text_of(a, "");
  const std::string raw_b = raw_text_of(b, "");
  const auto differ = std::mismatch(raw_a.begin(), raw_a.end(), raw_b.begin(), raw_b.end());
  const auto common = static_cast<size_t>(differ.first - raw_a.begin());
  const size_t start = raw_a.size() <= kMaxValue && raw_b.size() <= kMaxValue
                           ? 0
                           : character_start(raw_a, common > kContext ? common - kContext : 0);
  return {excerpt(raw_a, start), excerpt(raw_b, start)};
}

std::string change_line(const std::string& name, const Json* a, const Json* b) {
  const auto [from, to] = side_texts(a, b);
  return name + ": " + from + " → " + to;
}

std::string shape(const Json* value) {
  if (value == nullptr) return "(absent)";
  if (value->is_array()) return "array of " + std::to_string(value->size());
  if (value->is_object()) return "object of " + std::to_string(value->size()) + " keys";
  if (value->is_string())
    return std::to_string(value->get_ref<const std::string&>().size()) + " chars";
  return excerpt(raw_text_of(value, ""), 0);
}

const Json* member(const Json* value, const std::string& key) {
  if (value == nullptr || !value->is_object()) return nullptr;
  const auto it = value->find(key);
  return it == value->end() ? nullptr : &*it;
}

const Json* element(const Json* value, size_t index) {
  if (value == nullptr || !value->is_array() || index >= value->size()) return nullptr;
  return &(*value)[index];
}

struct Folder {
  ChangeText& out;
  size_t differing = 0;

  void leaf(const std::string& where, const Json* a, const Json* b) {
    ++differing;
    if (out.elements.size() < kMaxElements) {
      const std::string name = where.starts_with('.') ? where.substr(1) : where;
      out.elements.push_back(change_line(name, a, b));
    } else {
      ++out.elements_not_shown;
    }
  }

  void walk(const std::string& where, const Json* a, const Json* b, int depth) {
    const bool objects = a != nullptr && b != nullptr && a->is_object() && b->is_object();
    const bool arrays = a != nullptr && b != nullptr && a->is_array() && b->is_array();
    if (depth >= kMaxDepth || !(objects || arrays)) {
      if (a == nullptr || b == nullptr || *a != *b) leaf(where, a, b);
      return;
    }
    if (arrays) {
      for (size_t i = 0; i < std::max(a->size(), b->size()); ++i) {
        walk(where + "[" + std::to_string(i) + "]", element(a, i), element(b, i), depth + 1);
      }
      return;
    }
    std::set<std::string> keys;
    for (const auto& [key, _] : a->items())
      keys.insert(key);
    for (const auto& [key, _] : b->items())
      keys.insert(key);
    for (const auto& key : keys) {
      walk(where + "." + terminal_safe(key), member(a, key), member(b, key), depth + 1);
    }
  }
};

}  // namespace

ChangeText change_text(const std::string& path, const Json* a, const Json* b) {
  ChangeText text;
  const std::string safe_path = terminal_safe(path);
  const std::string whole = safe_path + ": " + (a != nullptr ? text_of(*a) : "(absent)") + " → " +
                            (b != nullptr ? text_of(*b) : "(absent)");
  if (whole.size() <= kMaxLine) {
    text.summary = whole;
    return text;
  }
  const bool comparable = a != nullptr && b != nullptr &&
                          ((a->is_array() && b->is_array()) || (a->is_object() && b->is_object()));
  if (!comparable) {
    text.summary = change_line(safe_path, a, b);
    return text;
  }
  Folder folder{text};
  folder.walk("", a, b, 0);
  text.summary = safe_path + ": " + shape(a) + " → " + shape(b) + ", " +
                 std::to_string(folder.differing) +
                 (folder.differing == 1 ? " element differs" : " elements differ");
  return text;
}

}  // namespace kdrift
