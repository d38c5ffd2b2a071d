#include <memory>

#include "checks/analysis.h"
#include "cli/commands.h"
#include "cli/report_arguments.h"
#include "snapshot/redact.h"

namespace kdrift {
namespace {

struct CheckArguments {
  std::string snapshot;
  std::string baseline;
  ReportArguments report;
};

}  // namespace

void register_check(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<CheckArguments>();
  auto* command = app.add_subcommand(
      "check", "Audit one snapshot against the rules; with --baseline, rank what changed since");
  command->add_option("SNAPSHOT", args->snapshot, "Snapshot to check")->required();
  command->add_option("--baseline", args->baseline,
                      "Earlier snapshot (the boot before an upgrade): report as kdrift diff "
                      "BASELINE SNAPSHOT does");
  args->report.add_options(*command);
  command->callback([args, &exit_status] {
    const auto rules = args->report.rules();
    Json snapshot = read_snapshot_file(args->snapshot);
    std::optional<Json> baseline;
    if (!args->baseline.empty()) baseline = read_snapshot_file(args->baseline);
    if (args->report.redact) redact_snapshots({baseline ? &*baseline : nullptr, &snapshot});
    const Json report =
        baseline ? diff_report({*baseline, args->baseline}, {snapshot, args->snapshot}, rules)
                 : check_report({snapshot, args->snapshot}, rules);
    exit_status = args->report.emit(report);
  });
}

}  // namespace kdrift
