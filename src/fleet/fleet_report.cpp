#include "fleet/fleet_report.h"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "diff/statistics.h"
#include "fleet/fleet_index.h"
#include "fleet/fleet_inputs.h"
#include "fleet/group_compare.h"
#include "kernel_facts/kernel_facts.h"
#include "rules/analysis.h"
#include "snapshot/json_access.h"
#include "util/fatal.h"
#include "util/ordered_pool.h"
#include "util/version.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxUnreadableListed = 100;
constexpr std::size_t kMaxGroupsListed = 50;
constexpr std::size_t kMaxSplitsListed = 30;
constexpr std::size_t kMaxSplitValuesListed = 8;
constexpr std::size_t kExamplesPerGroup = 5;
constexpr std::size_t kNoReference = std::numeric_limits<std::size_t>::max();
// Facts read ahead of the one the index waits for, per reader: enough that a slow snapshot does
// not idle the other readers, few enough that they are a handful of hosts' facts.
constexpr std::size_t kReadWindowPerReader = 4;

struct Candidate {
  std::size_t host = 0;
  std::vector<Deviation> deviations;
  std::size_t reference = kNoReference;
  Json findings = Json::array();
  int severity = 0;  // Severity as a number: info 0, warning 1, critical 2
  double score = 0;
};

struct FleetRead {
  std::vector<FleetInput> inputs;  // as read, the unreadable ones left out
  FleetIndex index;
  Json unreadable = Json::array();
  std::size_t unreadable_count = 0;
};

// What a reader thread makes of one input: the host's facts, or why its snapshot is unreadable.
Result<HostFacts> read_host(FleetInput& input, const JsonMemberFilter& filter,
                            const FactSelection& selection) {
  auto snapshot = read_fleet_input(input, &filter);
  if (!snapshot) return snapshot.error();
  return host_facts(*snapshot, selection);
}

// Each input is read, parsed and reduced to its facts on one of the reader threads; the facts
// are folded into the index here, in input order, so the document is the same for any number
// of readers.
Result<FleetRead> read_fleet(const FleetRequest& request, const FactSelection& selection) {
  auto inputs = fleet_inputs(request.arguments, kMaxFleetHosts);
  if (!inputs) return inputs.error();
  FleetRead read;
  const JsonMemberFilter filter = fleet_member_filter(selection);
  const std::size_t readers = std::max<std::size_t>(request.readers, 1);
  make_in_order(
      inputs->size(), readers, kReadWindowPerReader * readers,
      [&](std::size_t item) { return read_host((*inputs)[item], filter, selection); },
      [&](std::size_t item, Result<HostFacts> facts) {
        FleetInput& input = (*inputs)[item];
        if (!facts) {
          if (read.unreadable_count++ < kMaxUnreadableListed) {
            read.unreadable.push_back({{"file", input.file}, {"error", facts.error().describe()}});
          }
          return;
        }
        read.index.add(input.host, input.file, std::move(*facts));
        read.inputs.push_back(std::move(input));
      });
  if (read.inputs.empty()) {
    if (read.unreadable_count > 0)
      return content_error(read.unreadable[0]["error"].get<std::string>() +
                           " (no snapshot given could be read)");
    return content_error("no snapshot: the arguments name no .json or .json.gz file");
  }
  return read;
}

// The host each peer group's outliers are diffed against: one of the most common fingerprint
// among those that deviate in nothing (else the least deviating), keyed by hardware and kernel.
using References = std::map<std::pair<std::string, std::string>, std::size_t>;

References references(const FleetIndex& index,
                      const std::vector<std::vector<Deviation>>& deviations) {
  References chosen;
  for (const PeerGroup& group : index.peer_groups()) {
    std::size_t best = group.fingerprints.front();
    for (const std::size_t candidate : group.fingerprints) {
      const auto key = [&](std::size_t i) {
        return std::pair{deviations[i].size(),
                         -static_cast<long>(index.fingerprints()[i].hosts.size())};
      };
      if (key(candidate) < key(best)) best = candidate;
    }
    chosen[{group.hardware, group.kernel}] = index.fingerprints()[best].hosts.front();
  }
  return chosen;
}

// Where an outlier's reference comes from: its own peers, or, when its kernel is what differs,
// the peers of its hardware on the majority's kernel.
std::size_t reference_for(const FleetIndex& index, const Candidate& candidate,
                          const References& refs) {
  const Fingerprint& own = index.fingerprints()[index.hosts()[candidate.host].fingerprint];
  std::string kernel = own.kernel;
  for (const Deviation& deviation : candidate.deviations) {
    if (deviation.fact == "kernel.release") kernel = deviation.majority;
  }
  const auto found = refs.find({own.hardware, kernel});
  if (found == refs.end() || found->second == candidate.host) return kNoReference;
  return found->second;
}

std::vector<Candidate> candidates_of(const FleetIndex& index,
                                     const std::vector<std::vector<Deviation>>& deviations,
                                     const References& refs) {
  auto probe = index.probe_deviations();
  std::vector<Candidate> candidates;
  for (std::size_t host = 0; host < index.hosts().size(); ++host) {
    Candidate candidate{host, deviations[index.hosts()[host].fingerprint]};
    if (const auto found = probe.find(host); found != probe.end()) {
      candidate.deviations.insert(candidate.deviations.end(), found->second.begin(),
                                  found->second.end());
    }
    if (candidate.deviations.empty()) continue;
    candidate.reference = reference_for(index, candidate, refs);
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

int severity_number(std::string_view name) {
  return name == "critical" ? 2 : name == "warning" ? 1 : 0;
}

// The diff findings of an outlier against its reference that say it is worse or different, not
// better.
void take_findings(const Json& report, Candidate& candidate) {
  for (const Json& finding : array_at(report, {"findings"})) {
    if (text_member(finding, "direction") == "improved") continue;
    candidate.severity =
        std::max(candidate.severity, severity_number(text_member(finding, "severity")));
    candidate.score += number_member(finding, "score").value_or(0);
    Json kept = finding;
    kept.erase("rank");
    candidate.findings.push_back(std::move(kept));
  }
}

bool has_probe_deviation(const Candidate& candidate) {
  return std::any_of(candidate.deviations.begin(), candidate.deviations.end(),
                     [](const Deviation& d) { return d.fact.starts_with("probe.iops["); });
}

// What the rules say of one outlier against a reference, or why its snapshot could not be read
// again.
Result<Json> outlier_findings(FleetInput& input, const Json& reference,
                              const std::string& reference_file, const std::vector<Rule>& rules) {
  auto outlier = read_fleet_input(input, nullptr);
  if (!outlier) return outlier.error();
  return diff_findings({reference, reference_file, Judgements::kMade}, {*outlier, input.file},
                       rules);
}

// The outliers of one reference, in the order judge sorted them. Those that share a fingerprint
// and deviate in no probe job are diffed once, the first of them that can be read again: the
// others take its findings. The diffs run on the reader threads, their results taken in order;
// problems are listed in the order of the outliers they belong to.
class ReferenceJudge {
 public:
  ReferenceJudge(FleetRead& read, const std::vector<Rule>& rules, std::span<Candidate> outliers)
      : read_(read), rules_(rules), outliers_(outliers) {}

  void run(const Json& reference, std::size_t readers) {
    const std::string& file = read_.inputs[outliers_.front().reference].file;
    std::vector<std::size_t> diffed;  // each probe outlier and each fingerprint's first
    for (std::size_t i = 0; i < outliers_.size(); ++i) {
      if (leader(i) == i) diffed.push_back(i);
    }
    make_in_order(
        diffed.size(), readers, kReadWindowPerReader * readers,
        [&](std::size_t item) {
          return outlier_findings(input(diffed[item]), reference, file, rules_);
        },
        [&](std::size_t item, Result<Json> report) { settle(diffed[item], report, reference); });
    for (std::size_t i = 0; i < outliers_.size(); ++i) {
      if (const auto found = judged_.find(fingerprint(i)); leader(i) != i && found != judged_.end())
        copy_findings(outliers_[found->second], outliers_[i]);
    }
  }

  // The problems met, in the order of their outliers.
  std::map<std::size_t, Json>& problems() { return problems_; }

 private:
  FleetInput& input(std::size_t i) { return read_.inputs[outliers_[i].host]; }
  std::size_t fingerprint(std::size_t i) const {
    return read_.index.hosts()[outliers_[i].host].fingerprint;
  }
  // The outlier whose diff outlier i takes: itself, or the first of its fingerprint.
  std::size_t leader(std::size_t i) {
    if (has_probe_deviation(outliers_[i])) return i;
    return first_.emplace(fingerprint(i), i).first->second;
  }

  // On the calling thread: a diff's result; when the snapshot could not be read again, the next
  // outlier of its fingerprint is diffed in its place, here.
  void settle(std::size_t i, Result<Json>& report, const Json& reference) {
    const bool probe = has_probe_deviation(outliers_[i]);
    for (std::size_t next = i;;) {
      if (report) {
        take_findings(*report, outliers_[next]);
        if (!probe) judged_.emplace(fingerprint(next), next);
        return;
      }
      problems_[next] = {{"file", input(next).file}, {"error", report.error().describe()}};
      if (probe) return;
      do {
        if (++next == outliers_.size()) return;
      } while (has_probe_deviation(outliers_[next]) || fingerprint(next) != fingerprint(i));
      report = outlier_findings(input(next), reference,
                                read_.inputs[outliers_.front().reference].file, rules_);
    }
  }

  static void copy_findings(const Candidate& from, Candidate& to) {
    to.findings = from.findings;
    to.severity = from.severity;
    to.score = from.score;
  }

  FleetRead& read_;
  const std::vector<Rule>& rules_;
  std::span<Candidate> outliers_;
  std::map<std::size_t, std::size_t> first_;   // fingerprint → its first outlier
  std::map<std::size_t, std::size_t> judged_;  // fingerprint → the outlier whose diff it takes
  std::map<std::size_t, Json> problems_;
};

// Runs the rules over each outlier and its reference, each reference read once (outliers sorted
// by it, one reference held at a time) and one diff per fingerprint and reference unless the
// probe is part of the deviation.
void judge(FleetRead& read, const std::vector<Rule>& rules, std::vector<Candidate>& candidates,
           Json& problems, std::size_t readers) {
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.reference < b.reference; });
  for (auto begin = candidates.begin(); begin != candidates.end();) {
    const auto end = std::find_if(begin, candidates.end(), [&](const Candidate& candidate) {
      return candidate.reference != begin->reference;
    });
    const std::size_t reference_host = begin->reference;
    const std::span<Candidate> outliers(begin, end);
    begin = end;
    if (reference_host == kNoReference) continue;
    auto reference = read_fleet_input(read.inputs[reference_host], nullptr);
    if (!reference) {
      problems.push_back(
          {{"file", read.inputs[reference_host].file}, {"error", reference.error().describe()}});
      continue;
    }
    // Judged once here, not again for each outlier diffed against it.
    judge_kernel_facts(*reference);
    ReferenceJudge judging(read, rules, outliers);
    judging.run(*reference, readers);
    for (auto& [outlier, problem] : judging.problems())
      problems.push_back(std::move(problem));
  }
}

void rank(std::vector<Candidate>& candidates, const FleetIndex& index) {
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.score != b.score) return a.score > b.score;
    if (a.deviations.size() != b.deviations.size())
      return a.deviations.size() > b.deviations.size();
    return index.hosts()[a.host].host < index.hosts()[b.host].host;
  });
}

Json deviation_json(const Deviation& deviation) {
  Json entry = {{"fact", deviation.fact},
                {"value", deviation.value},
                {"majority", deviation.majority},
                {"majority_hosts", deviation.majority_hosts},
                {"peer_hosts", deviation.peer_hosts}};
  if (deviation.ratio > 0) entry["ratio"] = deviation.ratio;
  return entry;
}

Json outliers_json(const std::vector<Candidate>& candidates, const FleetIndex& index,
                   std::size_t limit) {
  constexpr std::string_view kSeverities[] = {"info", "warning", "critical"};
  Json outliers = Json::array();
  for (std::size_t i = 0; i < candidates.size() && i < limit; ++i) {
    const Candidate& candidate = candidates[i];
    const FleetHost& host = index.hosts()[candidate.host];
    const Fingerprint& fingerprint = index.fingerprints()[host.fingerprint];
    Json deviations = Json::array();
    for (const Deviation& deviation : candidate.deviations)
      deviations.push_back(deviation_json(deviation));
    Json entry = {{"rank", i + 1},
                  {"host", host.host},
                  {"file", host.file},
                  {"hostname", host.hostname},
                  {"kernel", fingerprint.kernel},
                  {"hardware", fingerprint.hardware},
                  {"severity", kSeverities[candidate.severity]},
                  {"score", candidate.score},
                  {"deviations", std::move(deviations)},
                  {"findings", candidate.findings}};
    if (candidate.reference != kNoReference)
      entry["reference"] = index.hosts()[candidate.reference].host;
    outliers.push_back(std::move(entry));
  }
  return outliers;
}

Json probe_medians(const FleetIndex& index, const std::vector<std::size_t>& hosts) {
  std::map<std::uint32_t, std::vector<double>> by_job;
  for (const std::size_t host : hosts) {
    for (const auto& [job, iops] : index.hosts()[host].probe_iops)
      by_job[job].push_back(iops);
  }
  Json probe = Json::object();
  for (auto& [job, values] : by_job) {
    const std::size_t hosts = values.size();
    probe[index.job_name(job)] = {{"iops_median", median(std::move(values))}, {"hosts", hosts}};
  }
  return probe;
}

Json groups_json(const FleetIndex& index) {
  std::vector<std::size_t> order(index.fingerprints().size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return index.fingerprints()[a].hosts.size() > index.fingerprints()[b].hosts.size();
  });
  Json groups = Json::array();
  for (std::size_t i = 0; i < order.size() && i < kMaxGroupsListed; ++i) {
    const Fingerprint& fingerprint = index.fingerprints()[order[i]];
    Json examples = Json::array();
    for (std::size_t e = 0; e < fingerprint.hosts.size() && e < kExamplesPerGroup; ++e) {
      examples.push_back(index.hosts()[fingerprint.hosts[e]].host);
    }
    Json facts = Json::object();
    for (const auto& [name, value] : fingerprint.facts)
      facts[index.fact_name(name)] = index.fact_value(value);
    groups.push_back({{"id", "g" + std::to_string(i + 1)},
                      {"hosts", fingerprint.hosts.size()},
                      {"kernel", fingerprint.kernel},
                      {"hardware", fingerprint.hardware},
                      {"examples", std::move(examples)},
                      {"fingerprint", std::move(facts)},
                      {"probe", probe_medians(index, fingerprint.hosts)}});
  }
  return groups;
}

Json peers_json(const FleetIndex& index, const std::vector<Candidate>& candidates,
                const References& refs) {
  std::map<std::pair<std::string, std::string>, std::size_t> outliers;
  for (const Candidate& candidate : candidates) {
    const Fingerprint& own = index.fingerprints()[index.hosts()[candidate.host].fingerprint];
    ++outliers[{own.hardware, own.kernel}];
  }
  Json peers = Json::array();
  for (const PeerGroup& group : index.peer_groups()) {
    const std::pair key{group.hardware, group.kernel};
    peers.push_back({{"hardware", group.hardware},
                     {"kernel", group.kernel},
                     {"hosts", group.hosts},
                     {"fingerprints", group.fingerprints.size()},
                     {"outliers", outliers[key]},
                     {"reference", index.hosts()[refs.at(key)].host}});
  }
  return peers;
}

// Facts with more than one value across the fleet, the most divided first.
Json splits_json(const FleetIndex& index) {
  std::map<std::uint32_t, std::map<std::uint32_t, std::size_t>> values;
  for (const Fingerprint& fingerprint : index.fingerprints()) {
    for (const auto& [name, value] : fingerprint.facts)
      values[name][value] += fingerprint.hosts.size();
  }
  std::vector<std::pair<std::size_t, std::uint32_t>> order;  // hosts off the commonest value
  for (const auto& [name, counts] : values) {
    if (index.fact_name(name) == "hardware") continue;
    // Hosts without the fact hold it as absent, a value like the others.
    std::size_t present = 0;
    std::size_t most = 0;
    for (const auto& [value, hosts] : counts) {
      present += hosts;
      most = std::max(most, hosts);
    }
    const std::size_t total = index.hosts().size();
    most = std::max(most, total - present);
    if (total > most) order.emplace_back(total - most, name);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  Json splits = Json::array();
  for (std::size_t i = 0; i < order.size() && i < kMaxSplitsListed; ++i) {
    std::vector<std::pair<std::size_t, std::string>> listed;
    std::size_t present = 0;
    for (const auto& [value, hosts] : values[order[i].second]) {
      listed.emplace_back(hosts, index.fact_value(value));
      present += hosts;
    }
    if (present < index.hosts().size())
      listed.emplace_back(index.hosts().size() - present, std::string(kAbsent));
    std::stable_sort(listed.begin(), listed.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    Json entries = Json::array();
    for (std::size_t v = 0; v < listed.size() && v < kMaxSplitValuesListed; ++v) {
      entries.push_back({{"value", listed[v].second}, {"hosts", listed[v].first}});
    }
    splits.push_back({{"fact", index.fact_name(order[i].second)},
                      {"values", std::move(entries)},
                      {"distinct_values", listed.size()}});
  }
  return splits;
}

Json status_json(const std::vector<Candidate>& candidates) {
  std::size_t counts[3] = {0, 0, 0};
  for (const Candidate& candidate : candidates)
    ++counts[candidate.severity];
  return {{"outliers", candidates.size()},
          {"critical", counts[2]},
          {"warning", counts[1]},
          {"info", counts[0]}};
}

}  // namespace

Result<Json> fleet_report(const FleetRequest& request, const std::vector<Rule>& rules) {
  const FactSelection facts(rules);
  auto read = read_fleet(request, facts);
  if (!read) return read.error();
  std::optional<GroupSelection> selection;
  if (!request.groups.empty()) {
    auto selected = select_groups(request.groups, request.reference, read->inputs);
    if (!selected) return selected.error();
    selection = std::move(*selected);
  }
  const auto deviations = read->index.fingerprint_deviations();
  const References refs = references(read->index, deviations);
  auto candidates = candidates_of(read->index, deviations, refs);
  judge(*read, rules, candidates, read->unreadable, std::max<std::size_t>(request.readers, 1));
  rank(candidates, read->index);
  Json fleet = {
      {"schema", kFleetSchema},
      {"tool", {{"name", "kdrift"}, {"version", kKdriftVersion}}},
      {"hosts", read->index.hosts().size()},
      {"unreadable", std::move(read->unreadable)},
      {"unreadable_count", read->unreadable_count},
      {"status", status_json(candidates)},
      {"peers", peers_json(read->index, candidates, refs)},
      {"groups", groups_json(read->index)},
      {"groups_count", read->index.fingerprints().size()},
      {"outliers", outliers_json(candidates, read->index, request.max_outliers)},
      {"outliers_omitted", candidates.size() - std::min(candidates.size(), request.max_outliers)},
      {"splits", splits_json(read->index)}};
  if (selection) fleet["comparison"] = compare_groups(*selection, read->inputs, rules);
  fleet["status"]["exit_status"] = fleet_exit_status(fleet);
  return fleet;
}

std::size_t default_fleet_readers() {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return std::clamp<std::size_t>(online > 0 ? static_cast<std::size_t>(online) : 1, 1,
                                 kMaxDefaultFleetReaders);
}

int fleet_exit_status(const Json& fleet) {
  const bool outlier = count_at(fleet, {"status", "critical"}).value_or(0) +
                           count_at(fleet, {"status", "warning"}).value_or(0) >
                       0;
  if (outlier || comparison_regressed(fleet)) return kExitFindings;
  return comparison_undecided(fleet) ? kExitUndecided : kExitClean;
}

}  // namespace kdrift
