#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/probe_arguments.h"
#include "cli/prometheus_output.h"
#include "cli/sysroot_argument.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct CaptureArguments {
  std::string root = "/";
  std::string output;
  std::string format = "json";
  mode_t mode = kDefaultOutputMode;
  ProbeArguments probe;
  PrometheusArguments prometheus;
};

}  // namespace

void register_capture(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<CaptureArguments>();
  auto* command = app.add_subcommand("capture", "Write a JSON snapshot of this boot's I/O state");
  command->add_option("--root", args->root,
                      "Read proc/, sys/, boot/ below DIR (or a dump-sysroot archive) instead of "
                      "the live host");
  command->add_option("-o,--output", args->output, "Write the snapshot to FILE (default stdout)");
  command
      ->add_option("--format", args->format,
                   "json (default: the snapshot) or prometheus (its metrics for "
                   "node_exporter's textfile collector, with the findings of the rules)")
      ->check(CLI::IsMember({"json", "prometheus"}));
  add_mode_option(*command, args->mode);
  args->prometheus.add_options(*command);
  args->probe.profile = "none";
  args->probe.rounds = kSnapshotRounds;
  command->add_option("--probe", args->probe.profile,
                      "Also run this probe profile (name or TOML file) on the live host; "
                      "none by default");
  args->probe.add_target_options(*command);
  command->callback([args, &exit_status] {
    const bool metrics = args->format == "prometheus";
    const auto rules = metrics ? args->prometheus.rules() : std::vector<Rule>();
    Json snapshot = capture_argument(args->root);
    if (args->probe.profile != "none") {
      if (args->root != "/") throw FatalError("--probe measures the live host; not with --root");
      const Profile profile = args->probe.resolve_profile();
      snapshot["probe"] = run_probe_or_exit(profile, args->probe.resolve_options(profile));
    }
    write_output(
        args->output,
        metrics ? args->prometheus.render(snapshot, Judgements::kMade, rules) : to_text(snapshot),
        args->mode);
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
