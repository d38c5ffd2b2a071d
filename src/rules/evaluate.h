#pragma once
// Running rules: over one snapshot (kdrift check) or a pair (kdrift diff, check --baseline).
// Snapshots are given with their derived facts (derived_facts.h).

#include <vector>

#include "diff/config_diff.h"
#include "rules/finding.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"

namespace kdrift {

std::vector<Finding> evaluate_check(const std::vector<Rule>& rules, const Json& snapshot);

// probe_jobs: the report's probe.jobs (probe_compare.h), for probe.regression.
std::vector<Finding> evaluate_diff(const std::vector<Rule>& rules, const Json& a, const Json& b,
                                   const Json& probe_jobs);

}  // namespace kdrift
