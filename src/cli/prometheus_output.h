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

  // --checks DIR, as check and diff take it.
  void add_options(CLI::App& command);
  // Loaded before anything is captured or measured, so that a bad rule file fails at once.
  std::vector<Rule> rules() const;
  static std::string render(const Json& snapshot, Judgements judgements,
                            const std::vector<Rule>& rules);
};

}  // namespace kdrift
