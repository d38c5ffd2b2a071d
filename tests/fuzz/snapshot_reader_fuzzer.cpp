// Any bytes given to kdrift diff or check: reading them either fails with an error value or
// yields a snapshot that the whole report path (derived facts, rules, ranking, the structured
// and probe diffs, every renderer, redaction) handles without crashing. A crash, a sanitizer
// report or an uncaught exception is a finding.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "report/report_html.h"
#include "report/report_text.h"
#include "rules/analysis.h"
#include "rules/rule_loader.h"
#include "snapshot/redact.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kdrift;
  static const std::vector<Rule> rules = builtin_rules().value();
  auto snapshot =
      read_snapshot_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!snapshot) return 0;
  const Json empty = Json::parse(R"({"schema": "kdrift.snapshot/1"})");
  const Json check = check_report({*snapshot, "fuzz"}, rules);
  const Report diff = diff_report({empty, "empty"}, {*snapshot, "fuzz"}, rules);
  const Report self = diff_report({*snapshot, "a"}, {*snapshot, "b"}, rules);
  (void)render_report_text(check, true);
  (void)render_report_markdown(diff.document);
  (void)render_report_html(diff.document, diff.probe_jobs);
  (void)render_report_html(self.document, self.probe_jobs);
  Json copy = *snapshot;
  redact_snapshots({&copy});
  return 0;
}
