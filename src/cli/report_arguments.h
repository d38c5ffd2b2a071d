#pragma once
// What diff, check, audit and history share: reading snapshots the user named, loading the rules,
// and writing the report in the format asked for.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/output.h"
#include "rules/rule.h"
#include "rules/snapshot_files.h"
#include "snapshot/snapshot.h"

namespace kdrift {

struct ReportArguments {
  std::string format = "text";
  std::string output;
  mode_t mode = kDefaultOutputMode;
  std::string checks_directory;
  bool redact = false;

  void add_options(CLI::App& command);
  std::vector<Rule> rules() const;
  // Renders and writes the report; returns the exit status it calls for.
  int emit(const Report& report) const;
  // The report for the files (rules/snapshot_files.h) with these rules and --redact, emitted.
  int emit_for_files(SnapshotFiles files) const;
};

// The built-in rules, or with a directory (--checks DIR) those and DIR/*.toml; a rule file that
// does not load is fatal (exit 2).
std::vector<Rule> rules_from(const std::string& checks_directory);

// A snapshot file (JSON, or gzip'd JSON); unreadable or invalid input is fatal (exit 2).
Json read_snapshot_or_exit(const std::string& path);

}  // namespace kdrift
