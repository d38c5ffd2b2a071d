#pragma once
// A finding as a functional bisect sees it (`kdrift bisect start --predicate ID`): absent, or
// present with the values its rule's matches hit. The signature leaves out the rule's context
// and proof, whose counters move from run to run, so two boots that behave alike for the rule
// have equal signatures, and a kernel that changed how it fails (IOPOLL: a silent fallback on
// 6.1, EOPNOTSUPP on 6.12) has another.

#include <string>
#include <vector>

#include "kernel_facts/kernel_facts.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

struct FindingObservation {
  bool present = false;
  std::vector<std::string> signature;  // the matched values, sorted; empty when absent
  std::vector<std::string> evidence;   // everything the finding shows, context included
};

// The rule must check one snapshot (not the built-in probe.regression or kernel.config, which
// compare two); an unknown id is an error naming it.
Result<const Rule*> functional_rule(const std::vector<Rule>& rules, const std::string& id);

FindingObservation observe_finding(const Rule& rule, const Json& snapshot, Judgements judgements);

}  // namespace kdrift
