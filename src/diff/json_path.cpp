#include "diff/json_path.h"

#include <algorithm>

namespace kdrift {
namespace {

bool needs_quotes(std::string_view key) {
  if (key.empty()) return true;
  return std::any_of(key.begin(), key.end(), [](char c) {
    return c == '.' || c == '[' || c == ']' || c == '"' || c == '*' || c == ' ';
  });
}

}  // namespace

std::string render_path(const ConcretePath& path) {
  std::string text;
  for (const auto& step : path) {
    if (step.element) {
      text += "[" + step.key + "]";
      continue;
    }
    if (!text.empty()) text += '.';
    text += needs_quotes(step.key) ? "\"" + step.key + "\"" : step.key;
  }
  return text;
}

std::string element_label(const Json& element, const std::string& field, std::size_t index) {
  if (element.is_object()) {
    const auto found = element.find(field);
    if (found != element.end()) {
      if (found->is_string()) return found->get<std::string>();
      if (found->is_number() || found->is_boolean()) return found->dump();
    }
  }
  return std::to_string(index);
}

PathHit join_hits(const PathHit& outer, const PathHit& inner) {
  PathHit joined = inner;
  joined.path = outer.path;
  joined.path.insert(joined.path.end(), inner.path.begin(), inner.path.end());
  if (!outer.subject.empty()) {
    joined.subject = inner.subject.empty() ? outer.subject : outer.subject + "/" + inner.subject;
  }
  return joined;
}

Result<PathPattern> PathPattern::parse(std::string_view text) {
  PathPattern pattern;
  pattern.text_ = std::string(text);
  std::size_t at = 0;
  auto fail = [&](const std::string& what) {
    return content_error("path \"" + std::string(text) + "\": " + what);
  };
  while (at < text.size()) {
    Segment segment;
    if (text[at] == '"') {
      const auto close = text.find('"', at + 1);
      if (close == std::string_view::npos) return fail("unterminated quote");
      segment.name = std::string(text.substr(at + 1, close - at - 1));
      at = close + 1;
    } else {
      const auto end = text.find_first_of(".[", at);
      segment.name = std::string(text.substr(at, end == std::string_view::npos ? end : end - at));
      at = end == std::string_view::npos ? text.size() : end;
      if (segment.name == "*") {
        segment.kind = Segment::Kind::kAnyMember;
      } else if (segment.name.empty()) {
        return fail("empty segment");
      } else if (segment.name.find_first_of("]\"*") != std::string::npos) {
        return fail("unexpected character in \"" + segment.name + "\"");
      }
    }
    if (at < text.size() && text[at] == '[') {
      const auto close = text.find(']', at);
      if (close == std::string_view::npos) return fail("unterminated [");
      if (segment.kind == Segment::Kind::kAnyMember) return fail("* cannot take [field]");
      segment.kind = Segment::Kind::kKeyedArray;
      segment.field = std::string(text.substr(at + 1, close - at - 1));
      if (segment.field.empty() || segment.field.find_first_of(".[\"*") != std::string::npos) {
        return fail("invalid field name in [" + segment.field + "]");
      }
      at = close + 1;
    }
    if (at < text.size()) {
      if (text[at] != '.') return fail("expected . after \"" + segment.name + "\"");
      ++at;
      if (at == text.size()) return fail("ends with .");
    }
    pattern.segments_.push_back(std::move(segment));
  }
  return pattern;
}

PathPattern PathPattern::parent() const {
  PathPattern shorter = *this;
  if (!shorter.segments_.empty()) shorter.segments_.pop_back();
  const auto cut = text_.rfind('.');
  shorter.text_ = shorter.segments_.empty() || cut == std::string::npos ? "" : text_.substr(0, cut);
  return shorter;
}

bool PathPattern::has_wildcards() const {
  return std::any_of(segments_.begin(), segments_.end(),
                     [](const Segment& segment) { return segment.kind != Segment::Kind::kKey; });
}

std::vector<PathHit> PathPattern::resolve(const Json& root) const {
  std::vector<PathHit> hits;
  resolve_from(root, 0, PathHit{}, hits);
  return hits;
}

void PathPattern::resolve_from(const Json& node, std::size_t index, PathHit hit,
                               std::vector<PathHit>& hits) const {
  if (index == segments_.size()) {
    hit.value = &node;
    hits.push_back(std::move(hit));
    return;
  }
  const Segment& segment = segments_[index];
  auto descend = [&](const Json& child, PathStep step, const std::string* wildcard_key,
                     const std::vector<PathStep>& extra) {
    PathHit next = hit;
    next.path.push_back(std::move(step));
    next.path.insert(next.path.end(), extra.begin(), extra.end());
    if (wildcard_key != nullptr) {
      next.subject = next.subject.empty() ? *wildcard_key : next.subject + "/" + *wildcard_key;
    }
    resolve_from(child, index + 1, std::move(next), hits);
  };
  switch (segment.kind) {
    case Segment::Kind::kKey: {
      if (!node.is_object()) return;
      const auto found = node.find(segment.name);
      if (found != node.end()) descend(*found, PathStep{segment.name}, nullptr, {});
      return;
    }
    case Segment::Kind::kAnyMember:
      if (node.is_object()) {
        for (const auto& [key, child] : node.items())
          descend(child, PathStep{key}, &key, {});
      } else if (node.is_array()) {
        for (std::size_t i = 0; i < node.size(); ++i) {
          const std::string label = std::to_string(i);
          // The element step replaces a key step: render as name[i] after the previous key.
          PathHit next = hit;
          next.path.push_back(PathStep{label, true});
          next.subject = next.subject.empty() ? label : next.subject + "/" + label;
          resolve_from(node[i], index + 1, std::move(next), hits);
        }
      }
      return;
    case Segment::Kind::kKeyedArray: {
      if (!node.is_object()) return;
      const auto found = node.find(segment.name);
      if (found == node.end() || !found->is_array()) return;
      for (std::size_t i = 0; i < found->size(); ++i) {
        const std::string label = element_label((*found)[i], segment.field, i);
        descend((*found)[i], PathStep{segment.name}, &label, {PathStep{label, true}});
      }
      return;
    }
  }
}

std::optional<std::string> PathPattern::unknown_reason(const Json& root) const {
  return unknown_from(root, 0);
}

std::optional<std::string> PathPattern::unknown_from(const Json& node, std::size_t index) const {
  if (index == segments_.size()) return std::nullopt;
  const Segment& segment = segments_[index];
  if (segment.kind == Segment::Kind::kAnyMember) {
    if (!node.is_structured()) return std::nullopt;
    for (const auto& child : node) {
      if (auto why = unknown_from(child, index + 1)) return why;
    }
    return std::nullopt;
  }
  if (!node.is_object()) return std::nullopt;
  const auto found = node.find(segment.name);
  if (found == node.end()) return kdrift::unknown_reason(node, segment.name);
  if (segment.kind == Segment::Kind::kKey) return unknown_from(*found, index + 1);
  if (!found->is_array()) return std::nullopt;
  for (const auto& element : *found) {
    if (auto why = unknown_from(element, index + 1)) return why;
  }
  return std::nullopt;
}

std::optional<std::string> unknown_reason(const Json& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  const auto unavailable = object.find("unavailable");
  if (unavailable == object.end() || !unavailable->is_object()) return std::nullopt;
  for (const std::string_view name : {key, std::string_view("*")}) {
    const auto reason = unavailable->find(name);
    if (reason == unavailable->end()) continue;
    return reason->is_string() ? reason->get<std::string>() : reason->dump();
  }
  return std::nullopt;
}

bool PathPattern::matches(const ConcretePath& path, bool prefix) const {
  std::size_t at = 0;
  for (const Segment& segment : segments_) {
    if (at >= path.size()) return false;
    switch (segment.kind) {
      case Segment::Kind::kKey:
        if (path[at].element || path[at].key != segment.name) return false;
        ++at;
        break;
      case Segment::Kind::kAnyMember:
        ++at;
        break;
      case Segment::Kind::kKeyedArray:
        if (path[at].element || path[at].key != segment.name) return false;
        if (at + 1 >= path.size() || !path[at + 1].element) return false;
        at += 2;
        break;
    }
  }
  return prefix ? at <= path.size() : at == path.size();
}

}  // namespace kdrift
