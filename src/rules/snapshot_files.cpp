#include "rules/snapshot_files.h"

#include <utility>

#include "diff/probe_compare.h"
#include "rules/analysis.h"
#include "snapshot/redact.h"

namespace kdrift {

Result<Report> snapshot_files_report(const SnapshotFiles& files, const std::vector<Rule>& rules) {
  if (files.snapshots.empty()) return make_error(EINVAL, "no snapshot to report on");
  if (files.baselines.empty() && files.snapshots.size() > 1) {
    return make_error(EINVAL, "several snapshots to check need a baseline to compare with");
  }
  for (const auto* side : {&files.baselines, &files.snapshots}) {
    if (side->size() > kMaxSnapshotsPerSide) {
      return make_error(EINVAL, std::to_string(side->size()) + " snapshots on one side: at most " +
                                    std::to_string(kMaxSnapshotsPerSide));
    }
  }
  std::vector<Json> snapshots(files.snapshots.size());
  std::vector<Json> baselines(files.baselines.size());
  std::vector<std::pair<const std::string*, Json*>> reads;
  const auto add_reads = [&](const std::vector<std::string>& paths, std::vector<Json>& into) {
    for (size_t index = 0; index < paths.size(); ++index)
      reads.emplace_back(&paths[index], &into[index]);
  };
  if (files.baseline_first) add_reads(files.baselines, baselines);
  add_reads(files.snapshots, snapshots);
  if (!files.baseline_first) add_reads(files.baselines, baselines);
  for (const auto& [path, into] : reads) {
    auto read = read_snapshot_file(*path);
    if (!read) return read.error();
    *into = std::move(*read);
  }
  for (const auto& [side, paths] :
       {std::pair{&baselines, &files.baselines}, std::pair{&snapshots, &files.snapshots}}) {
    for (size_t first = 0; first < side->size(); ++first) {
      for (size_t second = first + 1; second < side->size(); ++second) {
        if ((*side)[first] != (*side)[second]) continue;
        return make_error(EINVAL, (*paths)[first] + " and " + (*paths)[second] +
                                      " are the same snapshot: the samples of a side are "
                                      "other boots or hosts");
      }
    }
  }
  if (files.redact) {
    std::vector<Json*> every;
    for (auto* side : {&baselines, &snapshots}) {
      for (auto& snapshot : *side)
        every.push_back(&snapshot);
    }
    redact_snapshots(every);
  }
  const auto labeled = [](const std::vector<Json>& side, const std::vector<std::string>& paths) {
    std::vector<LabeledSnapshot> out;
    for (size_t index = 0; index < side.size(); ++index)
      out.push_back({side[index], paths[index]});
    return out;
  };
  if (baselines.empty()) {
    return Report{check_report({snapshots.front(), files.snapshots.front()}, rules), {}};
  }
  return diff_report_sets(labeled(baselines, files.baselines), labeled(snapshots, files.snapshots),
                          rules);
}

}  // namespace kdrift
