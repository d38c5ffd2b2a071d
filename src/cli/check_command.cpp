#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_arguments.h"

namespace kdrift {
namespace {

struct CheckArguments {
  std::string snapshot;
  std::vector<std::string> baselines;
  ReportArguments report;
};

}  // namespace

void register_check(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<CheckArguments>();
  auto* command = app.add_subcommand(
      "check", "Audit one snapshot against the rules; with --baseline, rank what changed since");
  command->add_option("SNAPSHOT", args->snapshot, "Snapshot to check")->required();
  command
      ->add_option("--baseline", args->baselines,
                   "Earlier snapshot (the boot before an upgrade): report as kdrift diff "
                   "BASELINE SNAPSHOT does; several (repeat the option) are boots as "
                   "samples, as kdrift diff BASELINE... -- SNAPSHOT")
      ->allow_extra_args(false);
  args->report.add_options(*command);
  command->callback([args, &exit_status] {
    exit_status = args->report.emit_for_files({{args->snapshot}, args->baselines});
  });
}

}  // namespace kdrift
