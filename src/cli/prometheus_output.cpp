#include "cli/prometheus_output.h"

#include "cli/report_arguments.h"
#include "diff/probe_compare.h"
#include "report/prometheus.h"
#include "rules/analysis.h"

namespace kdrift {

void PrometheusArguments::add_options(CLI::App& command) {
  command.add_option("--checks", checks_directory,
                     "Also load the rules in DIR/*.toml for the findings metrics (a rule with a "
                     "built-in id replaces it)");
  command
      .add_option("--baseline", baselines,
                  "Judge the snapshot against this earlier one (repeatable: several as samples), "
                  "as check --baseline does: the findings are the diff's, and each probe job's "
                  "verdict (changed, equivalent or inconclusive) is exported")
      ->expected(1, static_cast<int>(kMaxSnapshotsPerSide));
}

std::vector<Rule> PrometheusArguments::rules() const {
  return rules_from(checks_directory);
}

std::string PrometheusArguments::render(const Json& snapshot, Judgements judgements,
                                        const std::vector<Rule>& rules) const {
  if (baselines.empty()) {
    const Json report = check_report({snapshot, "snapshot", judgements}, rules);
    return render_prometheus(snapshot, &report);
  }
  std::vector<Json> read;
  read.reserve(baselines.size());
  for (const std::string& path : baselines)
    read.push_back(read_snapshot_or_exit(path));
  std::vector<LabeledSnapshot> before;
  for (std::size_t index = 0; index < read.size(); ++index)
    before.push_back({read[index], baselines[index]});
  const Report report =
      diff_report_sets(before, {LabeledSnapshot{snapshot, "snapshot", judgements}}, rules);
  return render_prometheus(snapshot, &report.document);
}

}  // namespace kdrift
