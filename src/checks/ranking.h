#pragma once
// Most likely cause first. A finding's score is
//   severity weight × the rule's known magnitude × relevance × proof
// - relevance: ×2 when the probe moved (significantly, in the finding's direction) where the
//   setting is known to act (high or low iodepth, sequential, polled, writes); ×0.5 when the
//   probe ran there and did not move; ×0.25 for a change in the other direction than the probe's.
// - proof: ×2 when the trace ties the setting to the I/O path (maps per I/O on one side only).
// Improvements keep their rule's weight but are halved without probe data to say otherwise.

#include <vector>

#include "checks/finding.h"
#include "snapshot/snapshot.h"

namespace kdrift {

// probe_jobs: the report's probe.jobs (empty for a single snapshot).
void rank_findings(std::vector<Finding>& findings, const Json& probe_jobs);

}  // namespace kdrift
