#include <memory>

#include "cli/commands.h"
#include "cli/report_arguments.h"

namespace kdrift {
namespace {

struct DiffArguments {
  std::string a;
  std::string b;
  ReportArguments report;
};

}  // namespace

void register_diff(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<DiffArguments>();
  auto* command = app.add_subcommand(
      "diff",
      "Compare two snapshots (A the reference, B the candidate) and rank what explains "
      "the difference");
  command->add_option("A", args->a, "Reference snapshot (before, or the good host)")->required();
  command->add_option("B", args->b, "Candidate snapshot (after, or the slow host)")->required();
  args->report.add_options(*command);
  command->callback([args, &exit_status] {
    // A is the baseline, read first.
    exit_status = args->report.emit_for_files({args->b, args->a, true});
  });
}

}  // namespace kdrift
