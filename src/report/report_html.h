#pragma once
// The report (schema kdrift.report/1, docs/report.md) as one self-contained HTML5 page to attach
// to a bug report: who was compared, the status, the findings in rank order, the probe's A/B
// charts and job table, the structured changes and the kernel config diff. Inline CSS and SVG
// only: no script, nothing fetched. Every field may be missing or of another type than the schema
// says; such a field is left out, never a reason to fail.

#include <string>
#include <vector>

#include "model/job_result.h"
#include "snapshot/snapshot.h"

namespace kdrift {

// probe_jobs: what each of the report's probe.jobs[] is (rules/analysis.h's Report), in the same
// order; the charts group jobs that differ only in queue depth by them.
std::string render_report_html(const Json& report, const std::vector<JobFacts>& probe_jobs);

}  // namespace kdrift
