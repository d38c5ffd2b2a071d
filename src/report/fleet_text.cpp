#include "report/fleet_text.h"

#include <sstream>

#include "report/text_table.h"
#include "report/verdict_text.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::size_t kOutliersShown = 20;
constexpr std::size_t kEvidenceShown = 4;

std::string count_of(const Json& root, std::initializer_list<std::string_view> keys) {
  return std::to_string(count_at(root, keys).value_or(0));
}

void headline(const Json& fleet, std::ostream& out) {
  out << "kdrift fleet: " << count_of(fleet, {"hosts"}) << " hosts, "
      << array_at(fleet, {"peers"}).size() << " peer groups (hardware and kernel), "
      << count_of(fleet, {"groups_count"}) << " fingerprints; "
      << count_of(fleet, {"status", "outliers"}) << " outliers (critical "
      << count_of(fleet, {"status", "critical"}) << ", warning "
      << count_of(fleet, {"status", "warning"}) << ", info " << count_of(fleet, {"status", "info"})
      << ")\n";
  const std::size_t unreadable = count_at(fleet, {"unreadable_count"}).value_or(0);
  if (unreadable > 0) {
    out << unreadable << " snapshot(s) could not be read:\n";
    for (const Json& entry : array_at(fleet, {"unreadable"}))
      out << "  " << text_at(entry, {"error"}) << "\n";
  }
}

void deviation_lines(const Json& outlier, std::ostream& out) {
  for (const Json& deviation : array_at(outlier, {"deviations"})) {
    out << "     " << text_at(deviation, {"fact"}) << " = " << text_at(deviation, {"value"})
        << "   (peers: " << text_at(deviation, {"majority"}) << ", "
        << count_of(deviation, {"majority_hosts"}) << " of " << count_of(deviation, {"peer_hosts"});
    if (auto ratio = number_at(deviation, {"ratio"}))
      out << "; x" << fixed(*ratio, 2) << " of the median";
    out << ")\n";
  }
}

void finding_lines(const Json& outlier, std::ostream& out) {
  for (const Json& finding : array_at(outlier, {"findings"})) {
    out << "     " << text_at(finding, {"severity"}) << "  " << text_at(finding, {"id"}) << ": "
        << text_at(finding, {"title"}) << "\n";
    std::size_t shown = 0;
    for (const Json& line : array_at(finding, {"evidence"})) {
      if (shown++ == kEvidenceShown) break;
      out << "       " << text_of(line) << "\n";
    }
  }
}

void outliers(const Json& fleet, std::ostream& out) {
  const Json& list = array_at(fleet, {"outliers"});
  if (list.empty()) {
    out << "\nNo outlier: every host holds its peers' majority on every fact.\n";
    return;
  }
  out << "\nOutliers, most important first (each diffed against a host holding its peers' "
         "majority):\n";
  std::size_t shown = 0;
  for (const Json& outlier : list) {
    if (shown++ == kOutliersShown) {
      out << "  ... " << list.size() - kOutliersShown << " more in --format json\n";
      break;
    }
    out << "  " << count_of(outlier, {"rank"}) << ". " << text_at(outlier, {"host"}) << "  "
        << text_at(outlier, {"severity"}) << "  kernel " << text_at(outlier, {"kernel"})
        << "  reference " << text_at(outlier, {"reference"}, "(none)") << "\n";
    deviation_lines(outlier, out);
    finding_lines(outlier, out);
  }
  if (const std::size_t omitted = count_at(fleet, {"outliers_omitted"}).value_or(0)) {
    out << "  (" << omitted << " more outliers not listed: --max-outliers)\n";
  }
}

void peers(const Json& fleet, std::ostream& out) {
  Table table({"hosts", "fingerprints", "outliers", "kernel", "hardware", "reference"});
  for (const Json& peer : array_at(fleet, {"peers"})) {
    table.add({count_of(peer, {"hosts"}), count_of(peer, {"fingerprints"}),
               count_of(peer, {"outliers"}), text_at(peer, {"kernel"}), text_at(peer, {"hardware"}),
               text_at(peer, {"reference"})});
  }
  out << "\nPeer groups:\n";
  table.render(out);
}

void groups(const Json& fleet, std::ostream& out) {
  Table table({"group", "hosts", "kernel", "examples"});
  for (const Json& group : array_at(fleet, {"groups"})) {
    std::vector<std::string> examples;
    for (const Json& host : array_at(group, {"examples"}))
      examples.push_back(text_of(host));
    table.add({text_at(group, {"id"}), count_of(group, {"hosts"}), text_at(group, {"kernel"}),
               join(examples, " ")});
  }
  out << "\nFingerprint groups (hosts whose I/O facts are all equal):\n";
  table.render(out);
}

void splits(const Json& fleet, std::ostream& out) {
  const Json& list = array_at(fleet, {"splits"});
  if (list.empty()) return;
  out << "\nSettings that split the fleet (hosts per value):\n";
  for (const Json& split : list) {
    std::vector<std::string> values;
    for (const Json& value : array_at(split, {"values"})) {
      values.push_back(text_at(value, {"value"}) + " (" + count_of(value, {"hosts"}) + ")");
    }
    out << "  " << text_at(split, {"fact"}) << ": " << join(values, ", ") << "\n";
  }
}

void comparison(const Json& fleet, std::ostream& out) {
  const Json* compared = object_at(fleet, {"comparison"});
  if (compared == nullptr) return;
  const std::string candidate = text_at(*compared, {"candidate", "name"});
  const std::string reference = text_at(*compared, {"reference", "name"});
  out << "\n"
      << candidate << " (" << count_of(*compared, {"candidate", "hosts"}) << " hosts) against "
      << reference << " (" << count_of(*compared, {"reference", "hosts"}) << " hosts):\n";
  std::vector<std::string> undecided;
  const auto note = [&](const std::string& what, const Verdict& verdict) {
    if (const std::string deciding = deciding_text(verdict); !deciding.empty())
      undecided.push_back(what + ": inconclusive: " + deciding);
  };
  Table findings({"finding", "severity", candidate, reference, "p", "verdict"});
  for (const Json& row : array_at(*compared, {"findings"})) {
    const Verdict verdict = Verdict::from_json(row);
    findings.add({text_at(row, {"id"}), text_at(row, {"severity"}),
                  count_of(row, {"candidate_hosts"}), count_of(row, {"reference_hosts"}),
                  fixed(number_at(row, {"p_value"}).value_or(1), 3), verdict_token(verdict)});
    note(text_at(row, {"id"}), verdict);
  }
  if (!findings.empty()) findings.render(out);
  Table facts({"setting", "value", candidate, reference, "p", "verdict"});
  for (const Json& row : array_at(*compared, {"facts"})) {
    const Verdict verdict = Verdict::from_json(row);
    facts.add({text_at(row, {"fact"}), text_at(row, {"value"}), count_of(row, {"candidate_hosts"}),
               count_of(row, {"reference_hosts"}),
               fixed(number_at(row, {"p_value"}).value_or(1), 3), verdict_token(verdict)});
    note(text_at(row, {"fact"}) + " = " + text_at(row, {"value"}), verdict);
  }
  out << "\nSettings that differ, or may, between the groups:\n";
  if (facts.empty())
    out << "  none\n";
  else
    facts.render(out);
  Table jobs({"job", "IOPS ratio",
              interval_heading(1 - number_at(*compared, {"probe", "alpha"}).value_or(0.01)),
              "verdict"});
  for (const Json& job : array_at(*compared, {"probe", "jobs"})) {
    const Verdict verdict = Verdict::from_json(job);
    jobs.add({text_at(job, {"name"}), fixed(number_at(job, {"iops_ratio"}).value_or(0), 2),
              bounds_text(verdict), verdict_token(verdict)});
    note(text_at(job, {"name"}), verdict);
  }
  out << "\nProbe jobs (" << candidate << " over " << reference << ", hosts as samples):\n";
  if (jobs.empty())
    out << "  " << text_at(*compared, {"probe", "unavailable"}, "no job in both groups") << "\n";
  else
    jobs.render(out);
  for (const std::string& line : undecided)
    out << "  " << line << "\n";
}

}  // namespace

std::string render_fleet_text(const Json& fleet) {
  std::ostringstream out;
  headline(fleet, out);
  outliers(fleet, out);
  comparison(fleet, out);
  peers(fleet, out);
  groups(fleet, out);
  splits(fleet, out);
  return out.str();
}

}  // namespace kdrift
