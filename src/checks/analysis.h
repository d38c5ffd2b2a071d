#pragma once
// The report document (docs/report.md, schema kdrift.report/1) for a pair of snapshots or for
// one: findings ranked, probe jobs compared, the structured diff and the kernel config diff.
// Every output format renders this document.

#include <string>
#include <vector>

#include "checks/rule.h"
#include "snapshot/snapshot.h"

namespace kdrift {

inline constexpr std::string_view kReportSchema = "kdrift.report/1";

struct LabeledSnapshot {
  const Json& snapshot;
  std::string label;  // as the user named the file
};

Json diff_report(const LabeledSnapshot& a, const LabeledSnapshot& b,
                 const std::vector<Rule>& rules);
Json check_report(const LabeledSnapshot& snapshot, const std::vector<Rule>& rules);

// The exit status the report calls for: 1 with a finding at warning or above or a probe
// regression, else 0.
int report_exit_status(const Json& report);

}  // namespace kdrift
