#include "iobench/fio_json_locate.h"

#include <algorithm>
#include <cstddef>
#include <optional>

namespace kdrift {
namespace {

// Objects tried before giving up. fio's normal text holds no braces, so the document is the
// first or (after a stray brace in a warning or a job name) among the first few; a bound keeps a
// file of many brace pairs from being parsed object by object.
constexpr int kMaxCandidates = 16;

// One past the brace that closes the object opening at start, or npos when the text ends first.
// Braces inside strings (job names, file names, option values) do not count.
size_t balanced_end(std::string_view text, size_t start) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

bool is_fio_document(const Json& document) {
  if (!document.is_object()) return false;
  for (const char* key : {"jobs", "client_stats"}) {
    const auto it = document.find(key);
    if (it != document.end() && it->is_array()) return true;
  }
  return false;
}

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
}

size_t line_of(std::string_view text, size_t offset) {
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

}  // namespace

Result<LocatedFioJson> locate_fio_json(std::string_view text, const std::string& source,
                                       const JsonLimits& limits) {
  std::optional<LocatedFioJson> found;
  size_t found_start = 0;
  size_t found_end = 0;
  size_t from = 0;
  int tried = 0;  // objects that were not fio's
  bool any = false;
  while (tried < kMaxCandidates) {
    const size_t start = text.find('{', from);
    if (start == std::string_view::npos) break;
    any = true;
    const size_t end = balanced_end(text, start);
    // After fio's document, a brace that never closes is a stray one in its normal text, unless
    // what follows is fio's next document cut off (a run stopped during --status-interval).
    if (end == std::string_view::npos && found &&
        text.find("\"fio version\"", start) == std::string_view::npos) {
      break;
    }
    if (end == std::string_view::npos) {
      return content_error(source + ": truncated fio output: the JSON object opened on line " +
                           std::to_string(line_of(text, start)) + " is never closed");
    }
    auto parsed = parse_bounded_json(text.substr(start, end - start), source, limits);
    if (!parsed) {
      // Over a limit: refused, as the whole file would be. Not JSON: a brace in the text.
      if (parsed.error().describe().find(": not valid JSON") == std::string::npos) {
        return parsed.error();
      }
      ++tried;
      from = start + 1;
      continue;
    }
    from = end;  // an object is skipped whole, fio's or someone else's
    if (!is_fio_document(*parsed)) {
      ++tried;
      continue;
    }
    // fio --status-interval writes its figures so far every interval, the final ones last.
    const size_t earlier = found ? found->earlier_documents + 1 : 0;
    found = LocatedFioJson{std::move(*parsed), false, earlier};
    found_start = start;
    found_end = end;
  }
  if (found) {
    found->surrounded_by_text =
        !blank(text.substr(0, found_start)) || !blank(text.substr(found_end));
    return std::move(*found);
  }
  if (!any) return content_error(source + ": no JSON object in it");
  return content_error(source + ": no fio JSON object (one with a \"jobs\" or \"client_stats\" " +
                       "array) among the first " + std::to_string(tried) + " objects in it");
}

}  // namespace kdrift
