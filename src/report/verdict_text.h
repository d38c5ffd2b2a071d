#pragma once
// A verdict (model/verdict.h) as every report says it: its interval at its confidence, and for an
// inconclusive one what would decide it, in the words of the unit that would.

#include <string>

#include "model/verdict.h"

namespace kdrift {

// "0.481–1.052", or "-" without bounds.
std::string bounds_text(const Verdict& verdict);
// "99 % interval": the heading of the column bounds_text fills (the level of the first verdict
// that has bounds, else of the comparison's alpha).
std::string interval_heading(double confidence);
// For an inconclusive verdict: "4 rounds a side would decide it at the noise seen (now 1)";
// empty for any other.
std::string deciding_text(const Verdict& verdict);

}  // namespace kdrift
