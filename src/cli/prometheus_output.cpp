#include "cli/prometheus_output.h"

#include "cli/report_arguments.h"
#include "report/prometheus.h"
#include "rules/analysis.h"

namespace kdrift {

void PrometheusArguments::add_options(CLI::App& command) {
  command.add_option("--checks", checks_directory,
                     "Also load the rules in DIR/*.toml for the findings metrics (a rule with a "
                     "built-in id replaces it)");
}

std::vector<Rule> PrometheusArguments::rules() const {
  return rules_from(checks_directory);
}

std::string PrometheusArguments::render(const Json& snapshot, Judgements judgements,
                                        const std::vector<Rule>& rules) {
  const Json report = check_report({snapshot, "snapshot", judgements}, rules);
  return render_prometheus(snapshot, &report);
}

}  // namespace kdrift
