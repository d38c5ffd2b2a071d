#pragma once
// JSON that comes from outside (snapshots, fio output, the bisect journal and knob records),
// parsed with its shape bounded: a depth and a value count checked while the text is read, so a
// small file that would expand into gigabytes of values, or nest deep enough to exhaust the stack
// of whatever walks it, is refused before any of it is built.

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

struct JsonLimits {
  size_t max_depth = 0;   // arrays and objects inside each other; the top level is depth 1
  size_t max_values = 0;  // every value, containers and scalars alike (object keys not counted)
};

// The document, or an error naming source: "not valid JSON (...)", "nested deeper than N
// levels", "more than N values". Trailing text after the document is invalid, as in
// nlohmann::json::parse.
Result<nlohmann::json> parse_bounded_json(std::string_view text, const std::string& source,
                                          const JsonLimits& limits);

// Whether to build an object member, given its path from the top: the member names, "[]" for an
// array level (probe.jobs[].trace is {"probe", "jobs", "[]", "trace"}). A reader that needs a
// few facts from thousands of documents (kdrift fleet) builds only those.
using JsonMemberFilter = std::function<bool(std::span<const std::string> path)>;

// parse_bounded_json building only the members keep accepts, in one walk over simdjson's
// On-Demand parse of the text (three times faster than nlohmann's lexer, which was most of a
// fleet read's time). Every value is visited, counted and read, built or not: the limits hold
// for the whole text, it is refused wherever the whole parse refuses it (in simdjson's words),
// and the members built are the values, of the same types, that the whole parse builds.
Result<nlohmann::json> parse_bounded_json(std::string_view text, const std::string& source,
                                          const JsonLimits& limits, const JsonMemberFilter& keep);

}  // namespace kdrift
