#pragma once
// The report document for snapshot files the user named: one snapshot checked against the rules,
// or, with a baseline, ranked by what changed since (kdrift diff BASELINE SNAPSHOT). What kdrift
// check, kdrift diff and kdrift history record (on a kernel change) share.

#include <string>
#include <vector>

#include "rules/analysis.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

struct SnapshotFiles {
  // The candidate side (B): one snapshot for check; one or several for a diff.
  std::vector<std::string> snapshots;
  // The reference side (A); empty: the snapshot alone, against the rules.
  std::vector<std::string> baselines;
  // Which file's error is told when several are unreadable: the first read (diff reads its
  // reference side A, the baselines, first; check its SNAPSHOT).
  bool baseline_first = false;
  bool redact = false;  // stable pseudonyms, the same in every file
};

// Errors name the file that could not be read or is not a snapshot, and refuse a side of more
// than kMaxSnapshotsPerSide files, one snapshot given twice on a side (it is not a second sample)
// or several snapshots to check without a baseline.
Result<Report> snapshot_files_report(const SnapshotFiles& files, const std::vector<Rule>& rules);

}  // namespace kdrift
