#include "rules/analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "diff/config_diff.h"
#include "diff/probe_compare.h"
#include "diff/structured_diff.h"
#include "rules/derived_facts.h"
#include "rules/evaluate.h"
#include "rules/ranking.h"
#include "snapshot/json_access.h"
#include "util/version.h"

namespace kdrift {
namespace {

std::string nested_text(const Json& snapshot, std::string_view section, std::string_view key) {
  const Json* object = object_member(snapshot, section);
  return object != nullptr ? text_member(*object, key) : std::string();
}

Json side_json(const LabeledSnapshot& side) {
  Json out = {{"label", side.label},
              {"hostname", nested_text(side.snapshot, "environment", "hostname")},
              {"kernel", nested_text(side.snapshot, "kernel", "release")},
              {"boot_id", nested_text(side.snapshot, "kernel", "boot_id")},
              {"captured_at", nested_text(side.snapshot, "capture", "captured_at")}};
  if (const Json* probe = object_member(side.snapshot, "probe")) {
    if (const Json* profile = object_member(*probe, "profile")) {
      out["probe_profile"] = text_member(*profile, "name");
    }
  }
  return out;
}

Json findings_json(const std::vector<Finding>& findings) {
  Json out = Json::array();
  int rank = 0;
  for (const auto& finding : findings) {
    out.push_back({{"rank", ++rank},
                   {"id", finding.rule->id},
                   {"severity", severity_name(finding.severity)},
                   {"title", finding.rule->title},
                   {"direction", direction_name(finding.direction)},
                   {"subjects", finding.subjects},
                   {"evidence", finding.evidence},
                   {"proof", finding.proof},
                   {"explanation", finding.rule->explanation},
                   {"remedy", finding.rule->remedy},
                   {"score", std::round(finding.score * 1000) / 1000}});
  }
  return out;
}

// [{id, title, facts: [{path, side?, why}], facts_not_listed?}]: the rules that met facts a
// snapshot does not know, which they neither flagged nor cleared.
Json not_judged_json(const std::vector<NotJudged>& rules) {
  Json out = Json::array();
  for (const auto& rule : rules) {
    Json facts = Json::array();
    for (const auto& fact : rule.facts) {
      Json entry = {{"path", fact.path}, {"why", fact.why}};
      if (!fact.side.empty()) entry["side"] = fact.side;
      facts.push_back(std::move(entry));
    }
    Json entry = {{"id", rule.rule->id}, {"title", rule.rule->title}, {"facts", std::move(facts)}};
    if (rule.facts_not_listed > 0) entry["facts_not_listed"] = rule.facts_not_listed;
    out.push_back(std::move(entry));
  }
  return out;
}

Json status_json(const std::vector<Finding>& findings, const Json& probe) {
  int counts[3] = {0, 0, 0};
  for (const auto& finding : findings)
    ++counts[static_cast<int>(finding.severity)];
  int regressions = 0;
  int inconclusive = 0;
  int equivalent = 0;
  if (const Json* jobs = array_member(probe, "jobs")) {
    for (const auto& job : *jobs) {
      const Verdict verdict = Verdict::from_json(job);
      regressions += verdict.regressed() ? 1 : 0;
      equivalent += verdict.state == VerdictState::kEquivalent ? 1 : 0;
      inconclusive += verdict.compared() && verdict.state == VerdictState::kInconclusive ? 1 : 0;
    }
  }
  const bool failing = counts[1] + counts[2] + regressions > 0;
  return {{"exit_status", failing ? kExitFindings : (inconclusive > 0 ? kExitUndecided : 0)},
          {"critical", counts[2]},
          {"warning", counts[1]},
          {"info", counts[0]},
          {"regressions", regressions},
          {"equivalent", equivalent},
          {"inconclusive", inconclusive}};
}

Json report_envelope(std::string_view kind) {
  return {{"schema", kReportSchema},
          {"kind", kind},
          {"tool", {{"name", "kdrift"}, {"version", kKdriftVersion}}}};
}

std::vector<JobFacts> facts_of(const std::vector<JobComparison>& jobs) {
  std::vector<JobFacts> out;
  out.reserve(jobs.size());
  for (const auto& job : jobs)
    out.push_back(job.job);
  return out;
}

// A pair's report without its structured changes and kernel config section, and the kernel
// config diff its rules judged, for the section.
struct PairFindings {
  Report report;
  std::optional<ConfigDiff> kernel_config;
};

PairFindings pair_findings(const LabeledSnapshot& a, const LabeledSnapshot& b,
                           const std::vector<Rule>& rules) {
  const Json derived_a = with_derived_facts(a.snapshot, a.judgements);
  const Json derived_b = with_derived_facts(b.snapshot, b.judgements);
  const std::string boot_a = nested_text(a.snapshot, "kernel", "boot_id");
  const bool same_boot = !boot_a.empty() && boot_a == nested_text(b.snapshot, "kernel", "boot_id");
  const ProbeComparison probe =
      compare_probes(object_member(a.snapshot, "probe"), object_member(b.snapshot, "probe"),
                     kDefaultAlpha, same_boot ? Boots::kSame : Boots::kDifferent);
  Json probe_json = probe.to_json();
  const Json no_jobs = Json::array();
  const Json* jobs = array_member(probe_json, "jobs");
  PairFindings out{{}, pair_kernel_config(rules, a.snapshot, b.snapshot)};
  std::vector<NotJudged> not_judged;
  auto findings = evaluate_diff(rules, derived_a, derived_b, jobs != nullptr ? *jobs : no_jobs,
                                out.kernel_config, &not_judged);
  rank_findings(findings, probe.jobs, RankOrder::kScore);
  Json& report = out.report.document;
  report = report_envelope("diff");
  report["a"] = side_json(a);
  report["b"] = side_json(b);
  report["status"] = status_json(findings, probe_json);
  report["findings"] = findings_json(findings);
  report["not_judged"] = not_judged_json(not_judged);
  report["probe"] = std::move(probe_json);
  out.report.probe_jobs = facts_of(probe.jobs);
  return out;
}

}  // namespace

Json diff_findings(const LabeledSnapshot& a, const LabeledSnapshot& b,
                   const std::vector<Rule>& rules) {
  return pair_findings(a, b, rules).report.document;
}

Report diff_report(const LabeledSnapshot& a, const LabeledSnapshot& b,
                   const std::vector<Rule>& rules) {
  PairFindings pair = pair_findings(a, b, rules);
  Json& report = pair.report.document;
  const auto changes = diff_snapshots(a.snapshot, b.snapshot);
  report["changes"] = changes_json(changes);
  report["unknown_differences"] = unknown_differences_json(changes);
  if (pair.kernel_config && pair.kernel_config->comparable) {
    report["kernel_config"] =
        config_diff_json(*pair.kernel_config, *object_at(a.snapshot, {"kernel", "config"}),
                         *object_at(b.snapshot, {"kernel", "config"}));
  }
  return std::move(pair.report);
}

Json check_report(const LabeledSnapshot& snapshot, const std::vector<Rule>& rules) {
  std::vector<NotJudged> not_judged;
  auto findings = evaluate_check(rules, with_derived_facts(snapshot.snapshot, snapshot.judgements),
                                 &not_judged);
  rank_findings(findings, {}, RankOrder::kSeverityThenScore);
  Json report = report_envelope("check");
  report["b"] = side_json(snapshot);
  report["status"] = status_json(findings, Json::object());
  report["findings"] = findings_json(findings);
  report["not_judged"] = not_judged_json(not_judged);
  return report;
}

namespace {

// A finding's identity across pairs: the same rule, direction and subjects.
std::string finding_key(const Finding& finding) {
  std::string key = finding.rule->id + "\n" + std::string(direction_name(finding.direction));
  for (const auto& subject : finding.subjects)
    key += "\n" + subject;
  return key;
}

// A side of several snapshots as the report names it: the first one's facts, every label.
Json side_set_json(const std::vector<LabeledSnapshot>& side) {
  Json out = side_json(side.front());
  std::string labels;
  out["snapshots"] = Json::array();
  for (const auto& snapshot : side) {
    labels += (labels.empty() ? "" : ", ") + snapshot.label;
    out["snapshots"].push_back(side_json(snapshot));
  }
  out["label"] = labels;
  return out;
}

// What differs between a side's first snapshot and each of the others.
std::vector<Change> changes_within(const std::vector<LabeledSnapshot>& side) {
  std::vector<Change> out;
  std::map<std::string, bool> seen;
  for (size_t index = 1; index < side.size(); ++index) {
    for (auto& change : diff_snapshots(side.front().snapshot, side[index].snapshot)) {
      if (seen.emplace(render_path(change.path), true).second) out.push_back(std::move(change));
    }
  }
  return out;
}

struct PairedFindings {
  std::vector<Finding> everywhere;    // in every pair, as the first pair gave them
  Json some_pairs = Json::array();    // {id, title, severity, direction, subjects, pairs, of}
  std::vector<NotJudged> not_judged;  // of the first pair that met unknown facts in each rule
};

// A rule's unknown facts once: the first pair that met them stands for the others.
void add_not_judged(std::vector<NotJudged>& into, std::vector<NotJudged>&& more) {
  for (auto& rule : more) {
    const bool known = std::any_of(into.begin(), into.end(),
                                   [&](const NotJudged& seen) { return seen.rule == rule.rule; });
    if (!known) into.push_back(std::move(rule));
  }
}

PairedFindings findings_of_every_pair(const std::vector<Json>& derived_a,
                                      const std::vector<Json>& derived_b,
                                      const std::vector<Rule>& rules, const Json& jobs) {
  std::map<std::string, std::pair<Finding, size_t>> counted;
  std::vector<std::string> order;
  PairedFindings out;
  for (const auto& a : derived_a) {
    for (const auto& b : derived_b) {
      std::vector<NotJudged> not_judged;
      auto findings =
          evaluate_diff(rules, a, b, jobs, pair_kernel_config(rules, a, b), &not_judged);
      add_not_judged(out.not_judged, std::move(not_judged));
      for (auto& finding : findings) {
        const std::string key = finding_key(finding);
        auto [entry, added] = counted.emplace(key, std::pair{finding, size_t{0}});
        if (added) order.push_back(key);
        ++entry->second.second;
      }
    }
  }
  const size_t pairs = derived_a.size() * derived_b.size();
  for (const auto& key : order) {
    const auto& [finding, count] = counted.at(key);
    if (count == pairs) {
      out.everywhere.push_back(finding);
      continue;
    }
    out.some_pairs.push_back({{"id", finding.rule->id},
                              {"title", finding.rule->title},
                              {"severity", severity_name(finding.severity)},
                              {"direction", direction_name(finding.direction)},
                              {"subjects", finding.subjects},
                              {"pairs", count},
                              {"of", pairs}});
  }
  return out;
}

}  // namespace

Report diff_report_sets(const std::vector<LabeledSnapshot>& a,
                        const std::vector<LabeledSnapshot>& b, const std::vector<Rule>& rules) {
  if (a.size() == 1 && b.size() == 1) return diff_report(a.front(), b.front(), rules);
  std::vector<Json> derived_a;
  std::vector<Json> derived_b;
  std::vector<const Json*> probes_a;
  std::vector<const Json*> probes_b;
  for (const auto& snapshot : a) {
    derived_a.push_back(with_derived_facts(snapshot.snapshot, snapshot.judgements));
    probes_a.push_back(object_member(snapshot.snapshot, "probe"));
  }
  for (const auto& snapshot : b) {
    derived_b.push_back(with_derived_facts(snapshot.snapshot, snapshot.judgements));
    probes_b.push_back(object_member(snapshot.snapshot, "probe"));
  }
  const ProbeComparison compared = compare_probe_sets(probes_a, probes_b);
  Json probe = compared.to_json();
  const Json no_jobs = Json::array();
  const Json* jobs = array_member(probe, "jobs");
  PairedFindings paired =
      findings_of_every_pair(derived_a, derived_b, rules, jobs != nullptr ? *jobs : no_jobs);
  rank_findings(paired.everywhere, compared.jobs, RankOrder::kScore);
  const auto within_a = changes_within(a);
  const auto within_b = changes_within(b);
  std::map<std::string, bool> varying;
  for (const auto* within : {&within_a, &within_b}) {
    for (const auto& change : *within)
      varying[render_path(change.path)] = true;
  }
  std::vector<Change> across;
  for (auto& change : diff_snapshots(a.front().snapshot, b.front().snapshot)) {
    if (varying.count(render_path(change.path)) == 0) across.push_back(std::move(change));
  }
  Json report = report_envelope("diff");
  report["a"] = side_set_json(a);
  report["b"] = side_set_json(b);
  report["status"] = status_json(paired.everywhere, probe);
  report["findings"] = findings_json(paired.everywhere);
  report["not_judged"] = not_judged_json(paired.not_judged);
  report["probe"] = std::move(probe);
  report["changes"] = changes_json(across);
  report["unknown_differences"] = unknown_differences_json(across);
  report["varies_within"] = {{"findings", std::move(paired.some_pairs)},
                             {"a", changes_json(within_a)},
                             {"b", changes_json(within_b)}};
  return {std::move(report), facts_of(compared.jobs)};
}

int report_exit_status(const Json& report) {
  const Json* status = object_member(report, "status");
  const auto code = status != nullptr ? integer_member(*status, "exit_status") : std::nullopt;
  if (!code || *code == 0) return 0;
  return *code == kExitUndecided ? kExitUndecided : kExitFindings;
}

}  // namespace kdrift
