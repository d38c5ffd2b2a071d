#include <unistd.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/sysroot_argument.h"
#include "collect/capture.h"
#include "report/summary.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct AuditArguments {
  std::string root = "/";
  std::string snapshot_output;
};

}  // namespace

void register_audit(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<AuditArguments>();
  auto* command = app.add_subcommand(
      "audit", "Capture this host and print a readable summary of its I/O-relevant state");
  command->add_option("--root", args->root,
                      "Audit DIR (or a dump archive) instead of the live host");
  command->add_option("--snapshot", args->snapshot_output, "Also write the snapshot to FILE");
  command->callback([args, &exit_status] {
    const SysrootArgument root(args->root);
    const Json snapshot = capture_snapshot(SysRoot(root.directory()));
    if (!args->snapshot_output.empty()) write_output(args->snapshot_output, to_text(snapshot));
    write_output("", render_summary(snapshot, isatty(STDOUT_FILENO) != 0));
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
