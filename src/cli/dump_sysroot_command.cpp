#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/sysroot_argument.h"
#include "collect/sysroot_dump.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct DumpArguments {
  std::string root = "/";
  std::string output;
  mode_t mode = kDefaultOutputMode;
};

}  // namespace

void register_dump_sysroot(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<DumpArguments>();
  auto* command = app.add_subcommand(
      "dump-sysroot", "Archive exactly the /proc, /sys and /boot files capture reads");
  command->add_option("--root", args->root, "Dump from DIR instead of the live host");
  command->add_option("-o,--output", args->output, "The archive to write (FILE.tar.gz)")
      ->required();
  add_mode_option(*command, args->mode);
  command->callback([args, &exit_status] {
    auto dump = dump_sysroot(sysroot_argument(args->root));
    if (!dump) throw FatalError("dump-sysroot: " + dump.error().describe());
    write_output(args->output, dump->tar_gz, args->mode);
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
