#include "cli/report_arguments.h"

#include <unistd.h>

#include "cli/output.h"
#include "report/report_html.h"
#include "report/report_text.h"
#include "rules/analysis.h"
#include "rules/rule_loader.h"
#include "rules/snapshot_files.h"
#include "util/fatal.h"

namespace kdrift {

void ReportArguments::add_options(CLI::App& command) {
  command.add_option("--format", format, "text (default), markdown, json or html")
      ->check(CLI::IsMember({"text", "markdown", "json", "html"}));
  command.add_option("-o,--output", output, "Write the report to FILE (default stdout)");
  add_mode_option(command, mode);
  command.add_option("--checks", checks_directory,
                     "Also load the rules in DIR/*.toml (a rule with a built-in id replaces it)");
  command.add_flag("--redact", redact,
                   "Replace host names, serial numbers, MAC/IP addresses and UUIDs with stable "
                   "pseudonyms");
}

std::vector<Rule> rules_from(const std::string& checks_directory) {
  auto rules = checks_directory.empty() ? builtin_rules() : load_rules(checks_directory);
  if (!rules) throw FatalError(rules.error().describe());
  return std::move(*rules);
}

std::vector<Rule> ReportArguments::rules() const {
  return rules_from(checks_directory);
}

int ReportArguments::emit(const Report& report) const {
  const Json& document = report.document;
  std::string text;
  if (format == "json") {
    text = document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  } else if (format == "markdown") {
    text = render_report_markdown(document);
  } else if (format == "html") {
    text = render_report_html(document, report.probe_jobs);
  } else {
    text = render_report_text(document, output.empty() && isatty(STDOUT_FILENO) != 0);
  }
  write_output(output, text, mode);
  return report_exit_status(document);
}

Json read_snapshot_or_exit(const std::string& path) {
  auto snapshot = read_snapshot_file(path);
  if (!snapshot) throw FatalError(snapshot.error().describe());
  return std::move(*snapshot);
}

int ReportArguments::emit_for_files(SnapshotFiles files) const {
  const auto loaded = rules();
  files.redact = redact;
  auto report = snapshot_files_report(files, loaded);
  if (!report) throw FatalError(report.error().describe());
  return emit(*report);
}

}  // namespace kdrift
