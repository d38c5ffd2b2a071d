#pragma once
// What a rule raised: one finding per rule, naming every subject it matched.

#include <string>
#include <vector>

#include "rules/rule.h"

namespace kdrift {

enum class Direction {
  kRegressed,  // B has what the rule flags and A had not
  kImproved,   // A had it, B has not
  kChanged,    // a setting that matters moved either way
  kPresent,    // check: this snapshot has it
};
std::string_view direction_name(Direction direction);

struct Finding {
  const Rule* rule = nullptr;
  Severity severity = Severity::kInfo;
  Direction direction = Direction::kPresent;
  std::vector<std::string> subjects;
  std::vector<std::string> evidence;
  std::vector<std::string> proof;
  double score = 0;
};

// A fact a rule needed and a snapshot does not know (absent, and named in its object's
// "unavailable" map): the rule neither fires nor clears on it.
struct UnknownFact {
  std::string path;
  std::string side;  // "a" or "b" for a diff, empty for a check
  std::string why;
};

// A rule that met unknown facts: what it could not judge, and why.
struct NotJudged {
  const Rule* rule = nullptr;
  std::vector<UnknownFact> facts;
  std::size_t facts_not_listed = 0;  // past the cap a finding's evidence has too
};

}  // namespace kdrift
