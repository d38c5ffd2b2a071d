#pragma once
// Running rules: over one snapshot (kdrift check) or a pair (kdrift diff, check --baseline).
// Snapshots are given with their derived facts (derived_facts.h).

#include <optional>
#include <vector>

#include "diff/config_diff.h"
#include "rules/finding.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"

namespace kdrift {

// not_judged, when given, receives every rule that met a fact the snapshot does not know, in
// rule order; such a fact neither raises nor clears a finding.
std::vector<Finding> evaluate_check(const std::vector<Rule>& rules, const Json& snapshot,
                                    std::vector<NotJudged>* not_judged = nullptr);

// The pair's kernel config diff by the groups of the first kernel-config rule (none without
// one): what that rule judges and the report's kernel_config section lists, computed once per
// pair. Nothing unless both snapshots carry kernel.config.
std::optional<ConfigDiff> pair_kernel_config(const std::vector<Rule>& rules, const Json& a,
                                             const Json& b);

// probe_jobs: the report's probe.jobs (probe_compare.h), for probe.regression; kernel_config:
// pair_kernel_config of the same pair (another kernel-config rule diffs by its own groups).
std::vector<Finding> evaluate_diff(const std::vector<Rule>& rules, const Json& a, const Json& b,
                                   const Json& probe_jobs,
                                   const std::optional<ConfigDiff>& kernel_config,
                                   std::vector<NotJudged>* not_judged = nullptr);

}  // namespace kdrift
