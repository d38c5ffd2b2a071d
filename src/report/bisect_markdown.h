#pragma once
// A kernel bisect's report as markdown fit to paste into a mailing-list report or a bug tracker:
// the first bad commit (or the config symbols) with the figures behind it, the commits it could
// also be, every step with its measurement and interval, the `git bisect log` to replay, and the
// reproducer. Rendered from the bisect report document (bisect/bisect_dir.h: bisect_report, with
// the "kernel" answer of bisect/kernel_report.h); decides nothing.

#include <string>

#include "snapshot/json_access.h"

namespace kdrift {

std::string render_bisect_markdown(const Json& report);

// The answer's lines for the text report: the first bad commit's sha and subject, or the
// config symbols; empty for a bisect that built nothing.
std::string kernel_answer_text(const Json& report);

}  // namespace kdrift
