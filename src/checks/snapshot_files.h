#pragma once
// The report document for snapshot files the user named: one snapshot checked against the rules,
// or, with a baseline, ranked by what changed since (kdrift diff BASELINE SNAPSHOT). What kdrift
// check, kdrift diff and kdrift history record (on a kernel change) share.

#include <string>
#include <vector>

#include "checks/rule.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

struct SnapshotFiles {
  std::string snapshot;
  std::string baseline;  // empty: the snapshot alone, against the rules
  // Which file's error is told when both are unreadable: the one read first (diff reads its
  // reference A, the baseline, first; check its SNAPSHOT).
  bool baseline_first = false;
  bool redact = false;  // stable pseudonyms, the same in both files
};

// Errors name the file that could not be read or is not a snapshot.
Result<Json> snapshot_files_report(const SnapshotFiles& files, const std::vector<Rule>& rules);

}  // namespace kdrift
