#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_arguments.h"
#include "util/fatal.h"

namespace kdrift {
namespace {

struct DiffArguments {
  std::vector<std::string> a;  // every snapshot before `--`, or the first of two
  std::vector<std::string> b;  // every snapshot after `--`
  ReportArguments report;
};

}  // namespace

std::vector<std::string> with_diff_sides(std::vector<std::string> args) {
  // Only `kdrift diff …`: a "diff" further on is another command's argument (a file name, the
  // command `bisect run` starts), and so is its `--`.
  if (args.size() < 2 || args[1] != "diff") return args;
  const auto separator = std::find(args.begin() + 2, args.end(), "--");
  if (separator != args.end()) *separator = std::string(kDiffSideSeparator);
  return args;
}

void register_diff(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<DiffArguments>();
  auto* command = app.add_subcommand(
      "diff",
      "Compare two snapshots (A the reference, B the candidate) and rank what explains "
      "the difference");
  command
      ->add_option("A", args->a,
                   "Reference snapshot (before, or the good host), then the candidate; or "
                   "several reference snapshots, then -- and several candidates (boots or "
                   "hosts as samples)")
      ->required();
  // main() turns the `--` between the sides into this option: CLI11 hands every positional to
  // one list and drops the `--` that split them.
  command->add_option(std::string(kDiffSideSeparator), args->b)->group("");
  args->report.add_options(*command);
  command->callback([args, &exit_status] {
    std::vector<std::string> reference = args->a;
    std::vector<std::string> candidate = args->b;
    if (candidate.empty()) {
      if (reference.size() != 2) {
        throw FatalError("diff takes A B, or A1 A2 ... -- B1 B2 ...: " +
                         std::to_string(reference.size()) + " snapshots and no --");
      }
      candidate = {reference.back()};
      reference.pop_back();
    }
    // A is the baseline, read first.
    exit_status = args->report.emit_for_files({candidate, reference, true});
  });
}

}  // namespace kdrift
