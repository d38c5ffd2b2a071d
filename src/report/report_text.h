#pragma once
// The report document (docs/report.md) for people: plain text (ANSI colour on a terminal) and
// markdown (to paste into a bug report). Both render every part the document has, in the same
// order: verdict, findings most likely cause first, probe comparison, changes, kernel config.

#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

std::string render_report_text(const Json& report, bool colour);
std::string render_report_markdown(const Json& report);

}  // namespace kdrift
