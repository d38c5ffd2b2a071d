#include "checks/snapshot_files.h"

#include <utility>

#include "checks/analysis.h"
#include "snapshot/redact.h"

namespace kdrift {

Result<Json> snapshot_files_report(const SnapshotFiles& files, const std::vector<Rule>& rules) {
  const bool pair = !files.baseline.empty();
  Json snapshot;
  Json baseline;
  std::vector<std::pair<const std::string*, Json*>> reads = {{&files.snapshot, &snapshot}};
  if (pair) {
    reads.insert(files.baseline_first ? reads.begin() : reads.end(), {&files.baseline, &baseline});
  }
  for (const auto& [path, into] : reads) {
    auto read = read_snapshot_file(*path);
    if (!read) return read.error();
    *into = std::move(*read);
  }
  if (files.redact) redact_snapshots({pair ? &baseline : nullptr, &snapshot});
  if (!pair) return check_report({snapshot, files.snapshot}, rules);
  return diff_report({baseline, files.baseline}, {snapshot, files.snapshot}, rules);
}

}  // namespace kdrift
