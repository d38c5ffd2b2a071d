#include "report/verdict_text.h"

#include <cstdio>

#include "report/text_table.h"

namespace kdrift {
namespace {

// What one more sample is, as the sentence needs it: "rounds a side", "hosts a group".
std::string per_side(SampleUnit unit) {
  return unit_name(unit) + (unit == SampleUnit::kHosts ? " a group" : " a side");
}

std::string margin_text(double margin) {
  char text[32];
  (void)std::snprintf(text, sizeof text, "±%g %%", 100 * margin);
  return text;
}

}  // namespace

std::string bounds_text(const Verdict& verdict) {
  if (!verdict.bounds) return "-";
  return fixed(verdict.bounds->low, 3) + "–" + fixed(verdict.bounds->high, 3);
}

std::string interval_heading(double confidence) {
  char text[32];
  (void)std::snprintf(text, sizeof text, "%g %% interval", 100 * confidence);
  return text;
}

std::string deciding_text(const Verdict& verdict) {
  if (verdict.state != VerdictState::kInconclusive || !verdict.compared() || !verdict.decide) {
    return "";
  }
  const DecidingSamples& decide = *verdict.decide;
  if (decide.beyond_reach) {
    return "no practical number of " + unit_name(decide.unit) +
           " would decide it: the change sits on the " + margin_text(verdict.margin) +
           " margin, or the noise could not be estimated (now " + std::to_string(decide.now) + " " +
           per_side(decide.unit) + ")";
  }
  std::string out = std::to_string(decide.needed) + " " + per_side(decide.unit) +
                    " would decide it at the noise seen (now " + std::to_string(decide.now) + ")";
  if (decide.unit == SampleUnit::kRounds) {
    out += ": kdrift probe --rounds " + std::to_string(decide.needed);
  } else if (decide.unit == SampleUnit::kSeconds) {
    out += ": a longer probe run";
  }
  return out;
}

}  // namespace kdrift
