#pragma once
// Where fio's JSON document sits in what a user saved: the bare document (--output-format=json
// or json+), the document between the normal report's header and its text
// (--output-format=json,normal), the normal text and then the document (fio --client with
// json,normal), or the document after warnings fio printed to the same stream. The document is
// found by its braces, not by what the text around it says.

#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/bounded_json.h"
#include "util/result.h"

namespace kdrift {

struct LocatedFioJson {
  Json document;
  // Whether anything but white space (earlier documents included) came before or after it.
  bool surrounded_by_text = false;
  // fio documents before this one: --status-interval writes the figures so far every interval
  // and the final ones last, so the last document in the text is the one located.
  size_t earlier_documents = 0;
};

// The last brace-balanced object in text that parses within limits as fio's document (an
// object with a "jobs" or "client_stats" array). Errors name source: no object at all, an object
// that never closes (a truncated file), none of fio's among the objects tried, or a limit
// refused while parsing (returned at once: a hostile document is not searched past).
Result<LocatedFioJson> locate_fio_json(std::string_view text, const std::string& source,
                                       const JsonLimits& limits);

}  // namespace kdrift
