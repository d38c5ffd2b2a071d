#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "iobench/fio_import.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct ImportFioArguments {
  std::string input;
  std::string output;
  mode_t mode = kDefaultOutputMode;
};

}  // namespace

void register_import_fio(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<ImportFioArguments>();
  auto* command = app.add_subcommand(
      "import-fio",
      "Turn fio's JSON results (json or json+, fio 2.x or 3.x, alone or with fio's normal text "
      "around them, client/server included) into a snapshot with a probe section");
  command->add_option("file", args->input, "fio output holding its JSON document (- for stdin)")
      ->required();
  command->add_option("-o,--output", args->output, "Write the snapshot to FILE (default stdout)");
  add_mode_option(*command, args->mode);
  command->callback([args, &exit_status] {
    auto section = import_fio_file(args->input);
    if (!section) throw FatalError(section.error().describe());
    Json document = new_snapshot();
    document["probe"] = *section;
    write_output(args->output, to_text(document), args->mode);
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
