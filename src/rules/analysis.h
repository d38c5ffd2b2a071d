#pragma once
// The report document (docs/report.md, schema kdrift.report/1) for a pair of snapshots or for
// one: findings ranked, probe jobs compared, the structured diff and the kernel config diff.
// Every output format renders this document.

#include <string>
#include <vector>

#include "kernel_facts/kernel_facts.h"
#include "model/job_result.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"
#include "util/fatal.h"

namespace kdrift {

inline constexpr std::string_view kReportSchema = "kdrift.report/1";

struct LabeledSnapshot {
  const Json& snapshot;
  std::string label;  // as the user named the file
  Judgements judgements = Judgements::kUntrusted;
};

// A report as built: the document, and what it holds of each probe.jobs[] entry only as text,
// typed, in the same order (the HTML report groups its charts by these facts, never by a job's
// name).
struct Report {
  Json document;
  std::vector<JobFacts> probe_jobs;
};

Report diff_report(const LabeledSnapshot& a, const LabeledSnapshot& b,
                   const std::vector<Rule>& rules);
// diff_report without the structured diff and the kernel config diff: the findings, the status
// and the probe comparison, for a caller that diffs many pairs (kdrift fleet).
Json diff_findings(const LabeledSnapshot& a, const LabeledSnapshot& b,
                   const std::vector<Rule>& rules);
Json check_report(const LabeledSnapshot& snapshot, const std::vector<Rule>& rules);

// A diff with several snapshots a side (boots or hosts as samples; at most
// kMaxSnapshotsPerSide): probe jobs compared with snapshots as the unit (compare_probe_sets);
// findings are those the rules give for every pair of an A and a B snapshot, and what holds
// for only some pairs is a setting that disagrees within a side, listed in `varies_within`
// with the structured changes between a side's own snapshots, never as a change. The changes
// and kernel config compare the first snapshot of each side, less what varies within a side.
// One snapshot a side is diff_report.
Report diff_report_sets(const std::vector<LabeledSnapshot>& a,
                        const std::vector<LabeledSnapshot>& b, const std::vector<Rule>& rules);

// The exit statuses a report calls for besides 0 (nothing at warning or above, every compared
// probe job changed for the better or equivalent) and 2 (usage or input error, decided before
// any report): 1, a finding at warning or above or a probe regression; 3, neither, but a probe
// job the data cannot decide (inconclusive): the run did not show "no change", so a script must
// not read it as a pass, and a regression test (1) must not fire on noise. `git bisect run`
// reads 3 as bad: map it to 125 (skip) there. (util/fatal.h: ExitStatus.)
int report_exit_status(const Json& report);

}  // namespace kdrift
