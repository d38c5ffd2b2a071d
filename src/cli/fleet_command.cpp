#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/report_arguments.h"
#include "fleet/fleet_report.h"
#include "report/fleet_html.h"
#include "report/fleet_text.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct FleetArguments {
  std::vector<std::string> inputs;
  std::vector<std::string> groups;  // NAME=GLOB
  std::string reference;
  std::size_t max_outliers = 100;
  std::size_t jobs = default_fleet_readers();
  std::string format = "text";
  std::string output;
  mode_t mode = kDefaultOutputMode;
  std::string checks_directory;
};

std::vector<FleetGroupPattern> group_patterns(const std::vector<std::string>& specs) {
  std::vector<FleetGroupPattern> groups;
  for (const auto& spec : specs) {
    const auto equals = spec.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size()) {
      throw FatalError("--group " + spec +
                       ": expected NAME=GLOB (a host-name or path pattern, or a directory)");
    }
    groups.push_back({spec.substr(0, equals), spec.substr(equals + 1)});
  }
  return groups;
}

int run_fleet(const FleetArguments& args) {
  const FleetRequest request{args.inputs, group_patterns(args.groups), args.reference,
                             args.max_outliers, args.jobs};
  auto fleet = fleet_report(request, rules_from(args.checks_directory));
  if (!fleet) throw FatalError(fleet.error().describe());
  std::string text;
  if (args.format == "json") {
    text = fleet->dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  } else if (args.format == "html") {
    text = render_fleet_html(*fleet);
  } else {
    text = render_fleet_text(*fleet);
  }
  write_output(args.output, text, args.mode);
  return fleet_exit_status(*fleet);
}

}  // namespace

void register_fleet(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<FleetArguments>();
  auto* command = app.add_subcommand(
      "fleet",
      "Group many hosts' snapshots by what moves their I/O, rank the hosts that differ from "
      "their peers, and compare a canary group with a control group");
  command
      ->add_option("SNAPSHOT", args->inputs,
                   "Snapshot files, or directories of them (*.json, *.json.gz directly inside); "
                   "a host is named by its file (HOST.json.gz)")
      ->required();
  command->add_option("--group", args->groups,
                      "NAME=GLOB: the hosts (by name, path or directory) of a group; give two "
                      "(canary and control) to compare them with hosts as samples");
  command->add_option("--reference", args->reference,
                      "Which --group is the reference (default: one named control or "
                      "baseline, else the second)");
  command->add_option("--max-outliers", args->max_outliers, "List at most N outliers (default 100)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  command
      ->add_option("--jobs", args->jobs,
                   "Read N snapshots at a time, each on its own thread (default: the online CPUs, "
                   "at most " +
                       std::to_string(kMaxDefaultFleetReaders) + ")")
      ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
  command->add_option("--format", args->format, "text (default), json or html")
      ->check(CLI::IsMember({"text", "json", "html"}));
  command->add_option("-o,--output", args->output, "Write the report to FILE (default stdout)");
  add_mode_option(*command, args->mode);
  command->add_option("--checks", args->checks_directory,
                      "Also load the rules in DIR/*.toml (a rule with a built-in id replaces it)");
  command->callback([args, &exit_status] { exit_status = run_fleet(*args); });
}

}  // namespace kdrift
