#include <unistd.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/probe_arguments.h"
#include "cli/sysroot_argument.h"
#include "report/probe_text.h"
#include "report/report_text.h"
#include "report/summary.h"
#include "rules/analysis.h"
#include "rules/rule_loader.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct AuditArguments {
  std::string root = "/";
  std::string snapshot_output;
  mode_t mode = kDefaultOutputMode;
  ProbeArguments probe;
};

}  // namespace

void register_audit(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<AuditArguments>();
  auto* command = app.add_subcommand(
      "audit", "Capture this host and print a readable summary of its I/O-relevant state");
  command->add_option("--root", args->root,
                      "Audit DIR (or a dump archive) instead of the live host");
  command->add_option("--snapshot", args->snapshot_output, "Also write the snapshot to FILE");
  add_mode_option(*command, args->mode);
  command->add_option("--probe", args->probe.profile,
                      "Probe profile to run on the live host (default quick; none to skip)");
  args->probe.rounds = kSnapshotRounds;
  args->probe.add_target_options(*command);
  command->callback([args, &exit_status] {
    Json snapshot = capture_argument(args->root);
    const bool probe = args->probe.profile != "none" && args->root == "/";
    if (probe) {
      const Profile profile = args->probe.resolve_profile();
      snapshot["probe"] = run_probe_or_exit(profile, args->probe.resolve_options(profile));
    }
    if (!args->snapshot_output.empty())
      write_output(args->snapshot_output, to_text(snapshot), args->mode);
    const bool colour = isatty(STDOUT_FILENO) != 0;
    std::string text = render_summary(snapshot, colour);
    if (probe) text += "\n" + render_probe_text(snapshot["probe"], colour);
    auto rules = builtin_rules();
    if (!rules) throw FatalError(rules.error().describe());
    const Json report = check_report(
        {snapshot, args->root == "/" ? "this host" : args->root, Judgements::kMade}, *rules);
    text += "\n" + render_report_text(report, colour);
    write_output("", text);
    exit_status = report_exit_status(report);
  });
}

}  // namespace kdrift
