#include "fleet/group_compare.h"

#include <algorithm>
#include <map>
#include <set>

#include "diff/probe_compare.h"
#include "diff/statistics.h"
#include "fleet/host_facts.h"
#include "rules/analysis.h"
#include "snapshot/json_access.h"

namespace kdrift {
namespace {

// What one side keeps of each host: its findings and facts as counts, its slimmed probe.
struct Side {
  std::size_t hosts = 0;
  std::map<std::string, std::size_t> findings;                       // id → hosts
  std::map<std::string, Json> finding_info;                          // id → {severity, title}
  std::map<std::pair<std::string, std::string>, std::size_t> facts;  // (fact, value) → hosts
  std::vector<Json> probes;
  Json unreadable = Json::array();
};

// A probe section without its jobs' traces: what compare_probe_sets reads, at a tenth the size.
Json slim_probe(const Json& snapshot) {
  const Json* probe = object_member(snapshot, "probe");
  if (probe == nullptr) return nullptr;
  Json slim = {{"jobs", Json::array()}};
  for (const Json& job : array_at(*probe, {"jobs"})) {
    Json kept = job;
    if (kept.is_object()) kept.erase("trace");
    slim["jobs"].push_back(std::move(kept));
  }
  return slim;
}

Side read_side(const std::vector<std::size_t>& members, std::vector<FleetInput>& inputs,
               const std::vector<Rule>& rules, const FactSelection& selection) {
  Side side;
  for (const std::size_t index : members) {
    auto snapshot = read_fleet_input(inputs[index], nullptr);
    if (!snapshot) {
      side.unreadable.push_back(
          {{"file", inputs[index].file}, {"error", snapshot.error().describe()}});
      continue;
    }
    ++side.hosts;
    const Json report = check_report({*snapshot, inputs[index].file}, rules);
    std::set<std::string> ids;
    for (const Json& finding : array_at(report, {"findings"})) {
      const std::string id = text_member(finding, "id");
      if (!ids.insert(id).second) continue;
      ++side.findings[id];
      side.finding_info[id] = {{"severity", text_member(finding, "severity")},
                               {"title", text_member(finding, "title")}};
    }
    for (const auto& [fact, value] : host_facts(*snapshot, selection).facts)
      ++side.facts[{fact, value}];
    side.probes.push_back(slim_probe(*snapshot));
  }
  return side;
}

// The smallest groups (equal sizes) whose clean split Fisher's exact test could call at alpha.
std::size_t hosts_for_clean_split(double alpha) {
  std::size_t n = 1;
  while (n < kMaxDecidingSamples && fisher_exact_two_sided(n, n, 0, n) >= alpha)
    ++n;
  return n;
}

// How many hosts of each group have a finding or a fact's value, judged three ways: changed when
// Fisher's exact test rejects at kGroupAlpha; equivalent when every host of both groups has it;
// else inconclusive. Settings are not noise, but a group of hosts stands for the hosts it would
// hold: three canaries that all differ from three controls could be chance (p 0.1), and a clean
// split says how many hosts a group would let the test call it.
Verdict count_verdict(std::size_t with_candidate, std::size_t candidates,
                      std::size_t with_reference, std::size_t references, double p_value) {
  if (candidates == 0 || references == 0) return Verdict::inconclusive();
  if (p_value < kGroupAlpha) {
    const bool more_candidates = with_candidate * references > with_reference * candidates;
    return Verdict::changed(more_candidates ? ChangeDirection::kRegression
                                            : ChangeDirection::kImprovement);
  }
  if (with_candidate == candidates && with_reference == references) {
    return Verdict::equivalent({1, 1, 1, 1 - kGroupAlpha});
  }
  const bool clean_split = (with_candidate == candidates && with_reference == 0) ||
                           (with_candidate == 0 && with_reference == references);
  if (!clean_split) return Verdict::inconclusive();
  const std::size_t needed = hosts_for_clean_split(kGroupAlpha);
  return Verdict::inconclusive(DecidingSamples{SampleUnit::kHosts, std::min(candidates, references),
                                               needed, needed >= kMaxDecidingSamples});
}

Json count_row(std::size_t with_candidate, const Side& candidate, std::size_t with_reference,
               const Side& reference) {
  const double p_value =
      fisher_exact_two_sided(with_candidate, candidate.hosts, with_reference, reference.hosts);
  const Verdict verdict =
      count_verdict(with_candidate, candidate.hosts, with_reference, reference.hosts, p_value);
  Json row = {{"candidate_hosts", with_candidate},
              {"reference_hosts", with_reference},
              {"p_value", p_value},
              {"differs", verdict.state == VerdictState::kChanged}};
  verdict.write_to(row);
  return row;
}

Json findings_rows(const Side& candidate, const Side& reference) {
  std::map<std::string, Json> info = reference.finding_info;
  for (const auto& [id, entry] : candidate.finding_info)
    info[id] = entry;
  Json rows = Json::array();
  for (const auto& [id, entry] : info) {
    // A named reference: clang before 16 cannot capture a structured binding.
    const std::string& finding_id = id;
    const auto in = [&](const Side& side) {
      const auto found = side.findings.find(finding_id);
      return found == side.findings.end() ? std::size_t{0} : found->second;
    };
    Json row = count_row(in(candidate), candidate, in(reference), reference);
    row["id"] = id;
    row["severity"] = entry["severity"];
    row["title"] = entry["title"];
    rows.push_back(std::move(row));
  }
  // Those that differ first, then by how many candidates have them.
  std::stable_sort(rows.begin(), rows.end(), [](const Json& a, const Json& b) {
    if (a["differs"] != b["differs"]) return a["differs"].get<bool>();
    return a["candidate_hosts"].get<std::size_t>() > b["candidate_hosts"].get<std::size_t>();
  });
  return rows;
}

// Only the fact values whose share differs: a fleet's hundred shared settings say nothing.
Json fact_rows(const Side& candidate, const Side& reference) {
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [key, hosts] : candidate.facts)
    keys.insert(key);
  for (const auto& [key, hosts] : reference.facts)
    keys.insert(key);
  Json rows = Json::array();
  for (const auto& key : keys) {
    const auto in = [&](const Side& side) {
      const auto found = side.facts.find(key);
      return found == side.facts.end() ? std::size_t{0} : found->second;
    };
    Json row = count_row(in(candidate), candidate, in(reference), reference);
    // A value that differs, or may (a clean split too small to call, listed as what it is).
    const Verdict verdict = Verdict::from_json(row);
    if (verdict.state != VerdictState::kChanged && !verdict.decide) continue;
    row["fact"] = key.first;
    row["value"] = key.second;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

Result<GroupSelection> select_groups(const std::vector<FleetGroupPattern>& groups,
                                     const std::string& reference_name,
                                     const std::vector<FleetInput>& inputs) {
  if (groups.size() != 2 || groups[0].name == groups[1].name) {
    return content_error(
        "--group: give two groups with different names (candidate and reference), e.g. --group "
        "canary=GLOB --group control=GLOB");
  }
  std::size_t reference = 1;
  if (!reference_name.empty()) {
    const auto found = std::find_if(groups.begin(), groups.end(), [&](const auto& group) {
      return group.name == reference_name;
    });
    if (found == groups.end())
      return content_error("--reference " + reference_name + ": no such --group");
    reference = static_cast<std::size_t>(found - groups.begin());
  } else if (groups[0].name == "control" || groups[0].name == "baseline") {
    reference = 0;
  }
  GroupSelection selection{groups[1 - reference].name, groups[reference].name, {}, {}};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const bool in_candidate = group_pattern_matches(groups[1 - reference].pattern, inputs[i]);
    const bool in_reference = group_pattern_matches(groups[reference].pattern, inputs[i]);
    if (in_candidate && in_reference) {
      return content_error("host " + inputs[i].host + " is in both groups (" + selection.candidate +
                           " and " + selection.reference + ")");
    }
    if (in_candidate) selection.candidate_hosts.push_back(i);
    if (in_reference) selection.reference_hosts.push_back(i);
  }
  for (const auto& [name, hosts] : {std::pair{selection.candidate, &selection.candidate_hosts},
                                    std::pair{selection.reference, &selection.reference_hosts}}) {
    if (hosts->empty()) return content_error("--group " + name + ": no host matches its pattern");
    if (hosts->size() > kMaxGroupHosts) {
      return content_error("--group " + name + ": more than " + std::to_string(kMaxGroupHosts) +
                           " hosts");
    }
  }
  return selection;
}

Json compare_groups(const GroupSelection& selection, std::vector<FleetInput>& inputs,
                    const std::vector<Rule>& rules) {
  const FactSelection facts(rules);
  const Side candidate = read_side(selection.candidate_hosts, inputs, rules, facts);
  const Side reference = read_side(selection.reference_hosts, inputs, rules, facts);
  std::vector<const Json*> probes_candidate;
  std::vector<const Json*> probes_reference;
  for (const Json& probe : candidate.probes)
    probes_candidate.push_back(probe.is_null() ? nullptr : &probe);
  for (const Json& probe : reference.probes)
    probes_reference.push_back(probe.is_null() ? nullptr : &probe);
  Json unreadable = candidate.unreadable;
  for (const Json& entry : reference.unreadable)
    unreadable.push_back(entry);
  Json probe = probes_candidate.empty() || probes_reference.empty()
                   ? Json{{"unavailable", "a group has no readable snapshot"}}
                   : compare_probe_sets(probes_reference, probes_candidate, kDefaultAlpha,
                                        SampleUnit::kHosts)
                         .to_json();
  return {{"candidate", {{"name", selection.candidate}, {"hosts", candidate.hosts}}},
          {"reference", {{"name", selection.reference}, {"hosts", reference.hosts}}},
          {"alpha", kGroupAlpha},
          {"findings", findings_rows(candidate, reference)},
          {"facts", fact_rows(candidate, reference)},
          {"probe", std::move(probe)},
          {"unreadable", std::move(unreadable)}};
}

bool comparison_regressed(const Json& fleet) {
  const Json* comparison = object_member(fleet, "comparison");
  if (comparison == nullptr) return false;
  for (const Json& row : array_at(*comparison, {"findings"})) {
    const std::string severity = text_member(row, "severity");
    if (severity != "warning" && severity != "critical") continue;
    if (Verdict::from_json(row).regressed()) return true;
  }
  for (const Json& job : array_at(*comparison, {"probe", "jobs"})) {
    if (Verdict::from_json(job).regressed()) return true;
  }
  return false;
}

bool comparison_undecided(const Json& fleet) {
  const Json* comparison = object_member(fleet, "comparison");
  if (comparison == nullptr) return false;
  const auto undecided = [](const Verdict& verdict) {
    return verdict.compared() && verdict.state == VerdictState::kInconclusive;
  };
  for (const Json& row : array_at(*comparison, {"findings"})) {
    const std::string severity = text_member(row, "severity");
    if (severity != "warning" && severity != "critical") continue;
    const Verdict verdict = Verdict::from_json(row);
    if (undecided(verdict) && verdict.decide) return true;
  }
  for (const Json& job : array_at(*comparison, {"probe", "jobs"})) {
    if (undecided(Verdict::from_json(job))) return true;
  }
  return false;
}

}  // namespace kdrift
