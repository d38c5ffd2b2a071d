// kdrift export: a snapshot in another tool's format. prometheus: metrics for node_exporter's
// textfile collector, which reads every *.prom file of its directory on each scrape; -o replaces
// the file atomically, so a scrape never reads half of one.

#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/prometheus_output.h"
#include "cli/report_arguments.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct ExportArguments {
  std::string snapshot;
  std::string output;
  mode_t mode = kDefaultOutputMode;
  PrometheusArguments prometheus;
};

}  // namespace

void register_export(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<ExportArguments>();
  auto* command = app.add_subcommand("export", "Write a snapshot in another tool's format");
  command->require_subcommand(1);
  auto* prometheus = command->add_subcommand(
      "prometheus",
      "Write a snapshot's facts, findings and probe results as Prometheus metrics for "
      "node_exporter's textfile collector");
  prometheus->add_option("SNAPSHOT", args->snapshot, "Snapshot to export")->required();
  prometheus->add_option("-o,--output", args->output,
                         "Write the metrics to FILE, replaced atomically (default stdout)");
  add_mode_option(*prometheus, args->mode);
  args->prometheus.add_options(*prometheus);
  prometheus->callback([args, &exit_status] {
    const auto rules = args->prometheus.rules();
    const Json snapshot = read_snapshot_or_exit(args->snapshot);
    write_output(args->output, args->prometheus.render(snapshot, Judgements::kUntrusted, rules),
                 args->mode);
    exit_status = kExitClean;
  });
}

}  // namespace kdrift
