#pragma once
// How deep a TOML document nests, found before a TOML parser sees it. toml++ builds tables and
// arrays recursively, and so does everything that walks what it built: a key nested tens of
// thousands deep in a shared rule or profile file would overflow the stack. This scan reads the
// text once, without recursion beyond the limit it enforces, and refuses at the first value
// deeper than that.

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

// A value's depth is the number of key parts on its path (a [table.header]'s, and a dotted
// key's, each count one; an [[array.table]] one more) plus the arrays and inline tables it sits
// in. Strings (basic, literal, multi-line), comments and quoted keys are understood, so a
// bracket inside them counts for nothing. "source:line: nested deeper than N levels" past
// max_depth. Text that is not TOML is left to the parser to report: the scan stops where it
// stops understanding, which is never after the parser's own first error.
Status check_toml_nesting(std::string_view text, const std::string& source, size_t max_depth);

}  // namespace kdrift
