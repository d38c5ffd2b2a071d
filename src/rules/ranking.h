#pragma once
// Most likely cause first. A finding's score is
//   severity weight × the rule's known magnitude × relevance × proof
// - relevance: ×2 when the probe moved (significantly, in the finding's direction) where the
//   setting is known to act (high or low iodepth, sequential, polled, writes); ×0.5 when the
//   probe ran there and did not move; ×0.25 for a change in the other direction than the probe's.
// - proof: ×2 when the trace ties the setting to the I/O path (maps per I/O on one side only).
// The severity weight is the finding's; an improvement (reported as info) keeps its rule's weight
// but is halved without probe data to say otherwise.

#include <vector>

#include "diff/probe_compare.h"
#include "rules/finding.h"

namespace kdrift {

// A diff orders by score: the likeliest explanation of what moved. A check has no movement to
// explain, so it orders by severity first (what needs attention), then score.
enum class RankOrder { kScore, kSeverityThenScore };

// probe_jobs: the probe comparison's jobs (none for a single snapshot).
void rank_findings(std::vector<Finding>& findings, const std::vector<JobComparison>& probe_jobs,
                   RankOrder order);

}  // namespace kdrift
