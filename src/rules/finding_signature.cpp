#include "rules/finding_signature.h"

#include <algorithm>

#include "rules/derived_facts.h"
#include "rules/evaluate.h"

namespace kdrift {

Result<const Rule*> functional_rule(const std::vector<Rule>& rules, const std::string& id) {
  const auto found =
      std::find_if(rules.begin(), rules.end(), [&](const Rule& rule) { return rule.id == id; });
  if (found == rules.end()) {
    return content_error("no rule raises the finding \"" + id +
                         "\" (the ids are the names of the files in checks/)");
  }
  if (found->builtin != Builtin::kNone) {
    return content_error("\"" + id +
                         "\" compares two snapshots; a functional bisect needs a finding that one "
                         "boot shows on its own");
  }
  return &*found;
}

FindingObservation observe_finding(const Rule& rule, const Json& snapshot, Judgements judgements) {
  const Json facts = with_derived_facts(snapshot, judgements);
  FindingObservation observation;
  const auto full = evaluate_check({rule}, facts);
  if (full.empty()) return observation;
  observation.present = true;
  observation.evidence = full.front().evidence;
  Rule matches_only = rule;
  matches_only.context.clear();
  const auto matched = evaluate_check({matches_only}, facts);
  if (!matched.empty()) observation.signature = matched.front().evidence;
  std::sort(observation.signature.begin(), observation.signature.end());
  return observation;
}

}  // namespace kdrift
