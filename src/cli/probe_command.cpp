#include <unistd.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/probe_arguments.h"
#include "report/fio_json.h"
#include "report/probe_text.h"
#include "util/fatal.h"
#include "util/version.h"

namespace kdrift {
namespace {

struct ProbeCommandArguments {
  ProbeArguments probe;
  std::string format = "text";
  std::string output;
  mode_t mode = kDefaultOutputMode;
  bool list_profiles = false;
};

std::string profile_list() {
  auto profiles = embedded_profiles();
  if (!profiles) throw FatalError(profiles.error().describe());
  std::string out;
  for (const auto& profile : *profiles) {
    out += profile.name + " (" + std::to_string(profile.jobs().size()) + " jobs)\n    " +
           profile.description + "\n";
  }
  return out;
}

}  // namespace

void register_probe(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<ProbeCommandArguments>();
  auto* command = app.add_subcommand(
      "probe", "Measure the async I/O path: io_uring in every mode, libaio, psync, pvsync2");
  args->probe.add_override_options(*command);
  command->add_option("--format", args->format, "text, json (a snapshot) or fio-json")
      ->check(CLI::IsMember({"text", "json", "fio-json"}));
  command->add_option("-o,--output", args->output, "Write to FILE (default stdout)");
  add_mode_option(*command, args->mode);
  command->add_flag("--list-profiles", args->list_profiles, "List the built-in profiles");
  command->callback([args, &exit_status] {
    exit_status = kExitClean;
    if (args->list_profiles) {
      write_output(args->output, profile_list(), args->mode);
      return;
    }
    const Profile profile = args->probe.resolve_profile();
    const Json section = run_probe_or_exit(profile, args->probe.resolve_options(profile));
    if (args->format == "json") {
      Json document = new_snapshot();
      document["probe"] = section;
      write_output(args->output, to_text(document), args->mode);
    } else if (args->format == "fio-json") {
      write_output(args->output, to_text(render_fio_json(section, kKdriftVersion)), args->mode);
    } else {
      const bool colour = args->output.empty() && isatty(STDOUT_FILENO) != 0;
      write_output(args->output, render_probe_text(section, colour), args->mode);
    }
  });
}

}  // namespace kdrift
