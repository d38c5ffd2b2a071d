#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/sysroot_argument.h"
#include "collect/capture.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct CaptureArguments {
  std::string root = "/";
  std::string output;
};

}  // namespace

void register_capture(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<CaptureArguments>();
  auto* command = app.add_subcommand("capture", "Write a JSON snapshot of this boot's I/O state");
  command->add_option("--root", args->root,
                      "Read proc/, sys/, boot/ below DIR (or a dump-sysroot archive) instead of "
                      "the live host");
  command->add_option("-o,--output", args->output, "Write the snapshot to FILE (default stdout)");
  command->callback([args, &exit_status] {
    const SysrootArgument root(args->root);
    write_output(args->output, to_text(capture_snapshot(SysRoot(root.directory()))));
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
