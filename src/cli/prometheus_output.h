#pragma once
// What `capture --format prometheus` and `export prometheus` share: a snapshot as node_exporter
// textfile metrics (report/prometheus.h), its findings from the rules checked against it alone.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "kernel_facts/kernel_facts.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"

namespace kdrift {

struct PrometheusArguments {
  std::string checks_directory;
  std::vector<std::string> baselines;

  // --checks DIR, as check and diff take it; --baseline FILE (repeatable), as check takes it.
  void add_options(CLI::App& command);
  // Loaded before anything is captured or measured, so that a bad rule file fails at once.
  std::vector<Rule> rules() const;
  // With baselines, read here (an unreadable one exits 2 naming it), the findings and the probe
  // verdicts are those of check --baseline.
  std::string render(const Json& snapshot, Judgements judgements,
                     const std::vector<Rule>& rules) const;
};

}  // namespace kdrift
