#include "rules/evaluate.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <unordered_set>

#include "diff/structured_diff.h"
#include "model/percentile_set.h"
#include "model/verdict.h"
#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxLinesPerFinding = 12;

struct Hit {
  std::string subject;
  std::string line;
  Severity severity = Severity::kInfo;
  Direction direction = Direction::kPresent;
};

// The facts a rule met that a side does not know, each once, the first kMaxLinesPerFinding kept.
class UnknownFacts {
 public:
  void add(std::string path, std::string side, std::string why) {
    if (!seen_.insert(side + "\n" + path).second) return;
    if (facts_.size() < kMaxLinesPerFinding) {
      facts_.push_back({std::move(path), std::move(side), std::move(why)});
    } else {
      ++not_listed_;
    }
  }
  bool empty() const { return facts_.empty(); }
  NotJudged take(const Rule& rule) && { return {&rule, std::move(facts_), not_listed_}; }

 private:
  std::set<std::string> seen_;
  std::vector<UnknownFact> facts_;
  std::size_t not_listed_ = 0;
};

// The elements a match looks at, by subject; without each, the root alone.
std::vector<PathHit> elements_of(const Match& match, const Json& root) {
  if (!match.each) return {PathHit{{}, "", &root}};
  return match.each->resolve(root);
}

const Json* value_in(const Match& match, const PathHit& element) {
  const auto hits = match.value.resolve(*element.value);
  return hits.empty() ? nullptr : hits.front().value;
}

std::string value_path(const Match& match, const PathHit& element) {
  const auto hits = match.value.resolve(*element.value);
  if (!hits.empty()) return render_path(join_hits(element, hits.front()).path);
  // Absent on this side: name it as the rule spells it.
  const std::string base = render_path(element.path);
  if (match.value.empty()) return base;
  return base.empty() ? match.value.text() : base + "." + match.value.text();
}

bool where_holds(const Match& match, const PathHit& element, const Json& root) {
  return std::all_of(match.where.begin(), match.where.end(), [&](const WhereClause& clause) {
    std::string_view text = clause.path;
    const Json* base = element.value;
    std::string absolute;
    if (text.starts_with("/")) {
      absolute = std::string(text.substr(1));
      // Quoted: subjects such as PCI addresses (0000:01:00.0) contain dots.
      const std::string key = "\"" + element.subject + "\"";
      for (auto at = absolute.find("{key}"); at != std::string::npos;
           at = absolute.find("{key}", at + key.size())) {
        absolute.replace(at, 5, key);
      }
      text = absolute;
      base = &root;
    }
    const auto pattern = PathPattern::parse(text);
    if (!pattern) return false;
    const auto hits = pattern->resolve(*base);
    if (hits.empty()) return clause.condition.holds(nullptr);
    return std::any_of(hits.begin(), hits.end(),
                       [&](const PathHit& hit) { return clause.condition.holds(hit.value); });
  });
}

bool state_holds(const Match& match, const Json* value) {
  return std::all_of(match.conditions.begin(), match.conditions.end(),
                     [&](const Condition& condition) {
                       return condition.compares_sides() || condition.holds(value);
                     });
}

bool change_holds(const Match& match, const Json* a, const Json* b) {
  return std::all_of(
      match.conditions.begin(), match.conditions.end(), [&](const Condition& condition) {
        return condition.compares_sides() ? condition.holds(a, b) : condition.holds(b);
      });
}

// Records, when the match's elements are unknown on a side (their collection is), why.
bool elements_unknown(const Match& match, const Json& root, const std::string& side,
                      UnknownFacts* unknown) {
  if (!match.each) return false;
  const auto why = match.each->unknown_reason(root);
  if (why && unknown != nullptr) unknown->add(match.each->text(), side, *why);
  return why.has_value();
}

// Records, when an element's value is absent because unknown, why.
bool value_unknown(const Match& match, const PathHit& element, const std::string& side,
                   UnknownFacts* unknown) {
  const auto why = match.value.unknown_reason(*element.value);
  if (why && unknown != nullptr) unknown->add(value_path(match, element), side, *why);
  return why.has_value();
}

std::vector<Hit> check_hits(const Match& match, Severity severity, const Json& snapshot,
                            UnknownFacts* unknown) {
  std::vector<Hit> hits;
  if (match.applies == Applies::kDiff || match.compares_sides()) return hits;
  const auto elements = elements_of(match, snapshot);
  if (elements.empty()) elements_unknown(match, snapshot, "", unknown);
  for (const auto& element : elements) {
    if (!where_holds(match, element, snapshot)) continue;
    const Json* value = value_in(match, element);
    if (value == nullptr) value_unknown(match, element, "", unknown);
    if (value == nullptr || !state_holds(match, value)) continue;
    hits.push_back({element.subject, value_path(match, element) + " = " + describe_value(*value),
                    match.severity.value_or(severity), Direction::kPresent});
  }
  return hits;
}

// Whether a value missing on one side is "not set" there rather than "not captured": the object
// that would hold it exists.
bool holder_exists(const Match& match, const Json& root, const PathHit* element) {
  if (element == nullptr) return match.each && !match.each->parent().resolve(root).empty();
  return match.value.empty() || !match.value.parent().resolve(*element->value).empty();
}

// Whether either side of a pair does not know what the match needs: its element, where the
// side's whole collection is unknown, or the value of an element both sides have (a device only
// one side has is not compared at all). Recorded as not judged.
bool pair_unknown(const Match& match, const Json& a, const Json& b, const PathHit* element_a,
                  const PathHit* element_b, UnknownFacts* unknown) {
  if (element_a == nullptr) return elements_unknown(match, a, "a", unknown);
  if (element_b == nullptr) return elements_unknown(match, b, "b", unknown);
  bool any = false;
  for (const auto& [element, side] : {std::pair{element_a, "a"}, std::pair{element_b, "b"}}) {
    if (value_in(match, *element) == nullptr) {
      any = value_unknown(match, *element, side, unknown) || any;
    }
  }
  return any;
}

// A state the match flags in B, where A's side is unknown: no change can be told, but B has
// it (a translated NVMe against a sos report without the IOMMU tree).
std::optional<Hit> present_in_b(const Match& match, Severity severity, const PathHit* element_b) {
  if (match.compares_sides() || element_b == nullptr) return std::nullopt;
  const Json* value = value_in(match, *element_b);
  if (value == nullptr || !state_holds(match, value)) return std::nullopt;
  return Hit{element_b->subject,
             value_path(match, *element_b) + ": (unknown) → " + describe_value(*value),
             match.severity.value_or(severity), Direction::kPresent};
}

std::vector<Hit> diff_hits(const Match& match, Severity severity, const Json& a, const Json& b,
                           UnknownFacts* unknown) {
  std::vector<Hit> hits;
  if (match.applies == Applies::kCheck) return hits;
  std::map<std::string, PathHit> in_a;
  for (auto& element : elements_of(match, a))
    in_a.emplace(element.subject, std::move(element));
  std::vector<std::pair<const PathHit*, const PathHit*>> pairs;
  const auto elements_b = elements_of(match, b);
  std::set<std::string> paired;
  for (const auto& element : elements_b) {
    const auto other = in_a.find(element.subject);
    pairs.emplace_back(other != in_a.end() ? &other->second : nullptr, &element);
    paired.insert(element.subject);
  }
  for (const auto& [subject, element] : in_a) {
    if (paired.count(subject) == 0) pairs.emplace_back(&element, nullptr);
  }
  const bool missing_allowed = match.compares_sides() && match.compare_missing;
  for (const auto& [element_a, element_b] : pairs) {
    const PathHit& named = element_b != nullptr ? *element_b : *element_a;
    if (!where_holds(match, named, element_b != nullptr ? b : a)) continue;
    if (pair_unknown(match, a, b, element_a, element_b, unknown)) {
      if (auto hit = present_in_b(match, severity, element_b)) hits.push_back(std::move(*hit));
      continue;
    }
    if ((element_a == nullptr || element_b == nullptr) && !missing_allowed)
      continue;  // a device one host lacks
    const Json* value_a = element_a != nullptr ? value_in(match, *element_a) : nullptr;
    const Json* value_b = element_b != nullptr ? value_in(match, *element_b) : nullptr;
    // A value missing where the object that would hold it exists is "not set" (a sysctl the
    // older kernel lacks): a state test reads it as not flagged, a change test only compares it
    // with compare_missing. Without the holder nothing is known about that side.
    if (value_a == nullptr || value_b == nullptr) {
      if (match.compares_sides() && !missing_allowed) continue;
      if (value_a == nullptr && !holder_exists(match, a, element_a)) continue;
      if (value_b == nullptr && !holder_exists(match, b, element_b)) continue;
    }
    const std::string line =
        value_path(match, named) + ": " +
        describe_change(value_a != nullptr ? std::optional<Json>(*value_a) : std::nullopt,
                        value_b != nullptr ? std::optional<Json>(*value_b) : std::nullopt);
    const Severity matched = match.severity.value_or(severity);
    if (match.compares_sides()) {
      if (change_holds(match, value_a, value_b)) {
        hits.push_back({named.subject, line, matched, Direction::kChanged});
      }
      continue;
    }
    const bool flagged_a = state_holds(match, value_a);
    const bool flagged_b = state_holds(match, value_b);
    if (flagged_b && !flagged_a) {
      hits.push_back({named.subject, line, matched, Direction::kRegressed});
    } else if (flagged_a && !flagged_b) {
      hits.push_back({named.subject, line, Severity::kInfo, Direction::kImproved});
    }
  }
  return hits;
}

// A finding's lines (subjects, evidence, proof) in the order first seen, each once. A line is
// looked up in a hash set, not compared with every earlier one: a rule hitting 100k elements
// costs a constant per line. Past `keep` the lines are only counted, and the last one kept gives
// way to "… and N more".
class FindingLines {
 public:
  explicit FindingLines(std::size_t keep) : keep_(keep) {}

  void add(std::string line) {
    const auto [entry, added] = seen_.insert(std::move(line));
    // Elements of an unordered_set stay where they are when it grows.
    if (added && kept_.size() < keep_) kept_.push_back(&*entry);
  }

  std::vector<std::string> lines() const {
    const bool over = seen_.size() > keep_;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < kept_.size() - (over ? 1 : 0); ++i)
      out.push_back(*kept_[i]);
    if (over) out.push_back("… and " + std::to_string(seen_.size() - out.size()) + " more");
    return out;
  }

 private:
  std::size_t keep_;
  std::unordered_set<std::string> seen_;
  std::vector<const std::string*> kept_;
};

// A finding while its rule is evaluated: its subjects are all kept, its evidence and proof
// capped.
struct FindingDraft {
  Finding finding;
  FindingLines subjects{std::numeric_limits<std::size_t>::max()};
  FindingLines evidence{kMaxLinesPerFinding};
  FindingLines proof{kMaxLinesPerFinding};

  Finding done() && {
    finding.subjects = subjects.lines();
    finding.evidence = evidence.lines();
    finding.proof = proof.lines();
    return std::move(finding);
  }
};

// One finding from a rule's hits: the worst severity, and regressed over changed over improved.
std::optional<FindingDraft> finding_from(const Rule& rule, const std::vector<Hit>& hits) {
  if (hits.empty()) return std::nullopt;
  FindingDraft draft;
  Finding& finding = draft.finding;
  finding.rule = &rule;
  auto rank = [](Direction direction) {
    switch (direction) {
      case Direction::kRegressed:
        return 3;
      case Direction::kPresent:
        return 2;
      case Direction::kChanged:
        return 1;
      case Direction::kImproved:
        return 0;
    }
    return 0;
  };
  finding.direction = hits.front().direction;
  for (const auto& hit : hits) {
    finding.severity = std::max(finding.severity, hit.severity);
    if (rank(hit.direction) > rank(finding.direction)) finding.direction = hit.direction;
    if (!hit.subject.empty()) draft.subjects.add(hit.subject);
    draft.evidence.add(hit.line);
  }
  return draft;
}

void add_context_check(const Rule& rule, const Json& snapshot, FindingDraft& finding) {
  for (const auto& pattern : rule.context) {
    for (const auto& hit : pattern.resolve(snapshot)) {
      if (hit.value->is_object() || hit.value->is_array()) continue;
      finding.evidence.add(render_path(hit.path) + " = " + describe_value(*hit.value));
    }
  }
}

void add_context_diff(const Rule& rule, const Json& a, const Json& b, FindingDraft& finding) {
  for (const auto& pattern : rule.context) {
    std::map<std::string, std::pair<const Json*, const Json*>> values;
    std::vector<std::string> order;
    for (const auto& hit : pattern.resolve(a)) {
      const auto path = render_path(hit.path);
      if (values.emplace(path, std::pair{hit.value, nullptr}).second) order.push_back(path);
    }
    for (const auto& hit : pattern.resolve(b)) {
      const auto path = render_path(hit.path);
      auto [entry, added] = values.emplace(path, std::pair{nullptr, hit.value});
      if (added) {
        order.push_back(path);
      } else {
        entry->second.second = hit.value;
      }
    }
    for (const auto& path : order) {
      const auto [value_a, value_b] = values[path];
      if (value_a != nullptr && value_b != nullptr && *value_a == *value_b) continue;
      if ((value_a != nullptr && value_a->is_structured()) ||
          (value_b != nullptr && value_b->is_structured())) {
        continue;
      }
      finding.evidence.add(path + ": " +
                           describe_change(value_a ? std::optional<Json>(*value_a) : std::nullopt,
                                           value_b ? std::optional<Json>(*value_b) : std::nullopt));
    }
  }
}

void add_proof(const std::vector<Hit>& proof_hits, FindingDraft& draft) {
  const Direction direction = draft.finding.direction;
  for (const auto& hit : proof_hits) {
    const bool supports = hit.direction == direction || (direction == Direction::kChanged &&
                                                         hit.direction != Direction::kImproved);
    if (supports) draft.proof.add(hit.line);
  }
}

std::string format_ratio(double value) {
  char text[32];
  (void)std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// The interval the verdict was decided on, at its confidence.
std::string interval_text(const Verdict& verdict) {
  if (!verdict.bounds) return "";
  char level[16];
  (void)std::snprintf(level, sizeof level, "%g", 100 * verdict.bounds->confidence);
  return std::string(" (") + level + " % interval " + format_ratio(verdict.bounds->low) + "–" +
         format_ratio(verdict.bounds->high) + ")";
}

std::string p_text(const Json& result) {
  const auto p = number_member(result, "p_value");
  if (!p) return "";
  char text[32];
  (void)std::snprintf(text, sizeof text, ", p = %.2g", *p);
  return text;
}

std::vector<Hit> probe_regression_hits(const Rule& rule, const Json& probe_jobs) {
  std::vector<Hit> hits;
  if (!probe_jobs.is_array()) return hits;
  for (const auto& job : probe_jobs) {
    const Verdict verdict = Verdict::from_json(job);
    if (verdict.state != VerdictState::kChanged) continue;
    std::string line = text_member(job, "name") + ": IOPS ×" +
                       format_ratio(number_member(job, "iops_ratio").value_or(0)) +
                       interval_text(verdict) + p_text(job);
    if (const Json* latency = object_member(job, "latency")) {
      for (const auto& [key, result] : latency->items()) {
        const Verdict moved = Verdict::from_json(result);
        if (moved.state != VerdictState::kChanged) continue;
        // The ratio the verdict and its interval are about: of the per-second medians for a
        // pair, of the snapshots' geometric means for several a side (which have no other).
        const auto ratio = number_member(result, "per_second_ratio");
        line += "; p" + percentile_label(key) + " latency ×" +
                format_ratio(ratio ? *ratio : number_member(result, "ratio").value_or(0));
        // A pair's latency verdict is about the change beyond what the IOPS change explains,
        // and its interval and p value are of that.
        if (const auto beyond = number_member(result, "beyond_iops_ratio")) {
          line += ", ×" + format_ratio(*beyond) + " beyond the IOPS change";
        }
        line += interval_text(moved) + p_text(result);
      }
    }
    const bool worse = verdict.regressed();
    hits.push_back({text_member(job, "name"), line, worse ? rule.severity : Severity::kInfo,
                    worse ? Direction::kRegressed : Direction::kImproved});
  }
  return hits;
}

const Rule* first_kernel_config_rule(const std::vector<Rule>& rules) {
  for (const auto& rule : rules) {
    if (rule.builtin == Builtin::kKernelConfig) return &rule;
  }
  return nullptr;
}

std::optional<ConfigDiff> kernel_config_diff(const Json& a, const Json& b,
                                             const std::vector<ConfigGroup>& groups) {
  const Json* config_a = object_at(a, {"kernel", "config"});
  const Json* config_b = object_at(b, {"kernel", "config"});
  if (config_a == nullptr || config_b == nullptr) return std::nullopt;
  return diff_kernel_config(*config_a, *config_b, groups);
}

std::vector<Hit> kernel_config_hits(const Rule& rule, const ConfigDiff& diff) {
  std::vector<Hit> hits;
  for (const auto& group : diff.groups) {
    for (const auto& change : group.changed) {
      hits.push_back(
          {group.name,
           "kernel.config.symbols." + change.symbol + ": " + describe_change(change.a, change.b),
           rule.severity, Direction::kChanged});
    }
  }
  if (!diff.other.empty()) {
    std::map<std::string, int> by_prefix;
    for (const auto& change : diff.other)
      ++by_prefix[config_prefix(change.symbol)];
    std::vector<std::pair<double, std::string>> counts;
    for (const auto& [prefix, count] : by_prefix)
      counts.emplace_back(count, prefix);
    // A finding's evidence line stays short; the report's config section lists more (12).
    const std::string line = std::to_string(diff.other.size()) +
                             " other symbols changed: " + largest_counts(std::move(counts), 8);
    hits.push_back({"", line, rule.severity, Direction::kChanged});
  }
  return hits;
}

}  // namespace

std::string_view direction_name(Direction direction) {
  switch (direction) {
    case Direction::kRegressed:
      return "regressed";
    case Direction::kImproved:
      return "improved";
    case Direction::kChanged:
      return "changed";
    case Direction::kPresent:
      return "present";
  }
  return "present";
}

std::vector<Finding> evaluate_check(const std::vector<Rule>& rules, const Json& snapshot,
                                    std::vector<NotJudged>* not_judged) {
  std::vector<Finding> findings;
  for (const auto& rule : rules) {
    if (rule.builtin != Builtin::kNone) continue;
    std::vector<Hit> hits;
    UnknownFacts unknown;
    for (const auto& match : rule.matches) {
      auto more = check_hits(match, rule.severity, snapshot, &unknown);
      hits.insert(hits.end(), more.begin(), more.end());
    }
    if (not_judged != nullptr && !unknown.empty())
      not_judged->push_back(std::move(unknown).take(rule));
    auto finding = finding_from(rule, hits);
    if (!finding) continue;
    add_context_check(rule, snapshot, *finding);
    for (const auto& match : rule.proof)
      add_proof(check_hits(match, rule.severity, snapshot, nullptr), *finding);
    findings.push_back(std::move(*finding).done());
  }
  return findings;
}

std::optional<ConfigDiff> pair_kernel_config(const std::vector<Rule>& rules, const Json& a,
                                             const Json& b) {
  static const std::vector<ConfigGroup> kNoGroups;
  const Rule* rule = first_kernel_config_rule(rules);
  return kernel_config_diff(a, b, rule != nullptr ? rule->config_groups : kNoGroups);
}

std::vector<Finding> evaluate_diff(const std::vector<Rule>& rules, const Json& a, const Json& b,
                                   const Json& probe_jobs,
                                   const std::optional<ConfigDiff>& kernel_config,
                                   std::vector<NotJudged>* not_judged) {
  const Rule* first_config_rule = first_kernel_config_rule(rules);
  std::vector<Finding> findings;
  for (const auto& rule : rules) {
    std::vector<Hit> hits;
    UnknownFacts unknown;
    switch (rule.builtin) {
      case Builtin::kProbeRegression:
        hits = probe_regression_hits(rule, probe_jobs);
        break;
      case Builtin::kKernelConfig:
        if (&rule != first_config_rule) {
          if (const auto own = kernel_config_diff(a, b, rule.config_groups)) {
            hits = kernel_config_hits(rule, *own);
          }
        } else if (kernel_config) {
          hits = kernel_config_hits(rule, *kernel_config);
        }
        break;
      case Builtin::kNone:
        for (const auto& match : rule.matches) {
          auto more = diff_hits(match, rule.severity, a, b, &unknown);
          hits.insert(hits.end(), more.begin(), more.end());
        }
        break;
    }
    if (not_judged != nullptr && !unknown.empty())
      not_judged->push_back(std::move(unknown).take(rule));
    auto finding = finding_from(rule, hits);
    if (!finding) continue;
    add_context_diff(rule, a, b, *finding);
    for (const auto& match : rule.proof)
      add_proof(diff_hits(match, rule.severity, a, b, nullptr), *finding);
    findings.push_back(std::move(*finding).done());
  }
  return findings;
}

}  // namespace kdrift
