#include "rules/ranking.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "snapshot/json_access.h"

namespace kdrift {
namespace {

double severity_weight(Severity severity) {
  switch (severity) {
    case Severity::kCritical:
      return 4;
    case Severity::kWarning:
      return 2;
    case Severity::kInfo:
      return 1;
  }
  return 1;
}

bool job_in(Relevance relevance, const JobFacts& job) {
  const double depth = job.iodepth.value_or(1);
  switch (relevance) {
    case Relevance::kAny:
      return true;
    case Relevance::kHighIodepth:
      return depth >= 16;
    case Relevance::kLowIodepth:
      return depth <= 4;
    case Relevance::kSequential:
      return job.sequential;
    case Relevance::kPolled:
      return job.polled;
    case Relevance::kWrites:
      return job.writes;
  }
  return false;
}

struct Movement {
  bool compared = false;  // some job has statistics on both sides
  bool worse = false;
  bool better = false;
  bool ran_here = false;
  bool worse_here = false;
  bool better_here = false;
};

Movement movement_for(Relevance relevance, const std::vector<JobComparison>& probe_jobs) {
  Movement movement;
  for (const auto& job : probe_jobs) {
    if (!job.verdict.compared()) continue;
    movement.compared = true;
    const bool here = job_in(relevance, job.job);
    movement.ran_here = movement.ran_here || here;
    if (job.verdict.regressed()) {
      movement.worse = true;
      movement.worse_here = movement.worse_here || here;
    } else if (job.verdict.improved()) {
      movement.better = true;
      movement.better_here = movement.better_here || here;
    }
  }
  return movement;
}

double relevance_factor(const Finding& finding, const std::vector<JobComparison>& probe_jobs) {
  const Movement movement = movement_for(finding.rule->relevance, probe_jobs);
  const bool improvement = finding.direction == Direction::kImproved;
  if (!movement.compared || !(movement.worse || movement.better)) return improvement ? 0.5 : 1;
  const bool moved_this_way = improvement ? movement.better_here : movement.worse_here;
  const bool moved_other_way =
      improvement ? movement.worse && !movement.better : movement.better && !movement.worse;
  if (finding.direction == Direction::kChanged) {
    return movement.worse_here || movement.better_here ? 2 : (movement.ran_here ? 0.5 : 1);
  }
  if (moved_this_way) return 2;
  if (moved_other_way) return 0.25;
  return movement.ran_here ? 0.5 : 1;
}

constexpr std::size_t kNoCause = static_cast<std::size_t>(-1);

// For each finding, the index of the raised finding it follows from: the first of its rule's
// follows that is present (in a check, of the same severity, or none). An edge that would close a
// cycle of user rules is dropped, so the causes form a forest.
std::vector<std::size_t> causes_of(const std::vector<Finding>& findings, RankOrder order) {
  std::unordered_map<std::string_view, std::size_t> first_with_id;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    first_with_id.try_emplace(findings[i].rule->id, i);
  }
  std::vector<std::size_t> causes(findings.size(), kNoCause);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    for (const auto& id : findings[i].rule->follows) {
      const auto found = first_with_id.find(id);
      if (found == first_with_id.end()) continue;
      const std::size_t cause = found->second;
      const bool same_severity = findings[i].severity == findings[cause].severity;
      if (order == RankOrder::kSeverityThenScore && !same_severity) break;
      bool closes_cycle = false;
      for (std::size_t up = cause; up != kNoCause && !closes_cycle; up = causes[up]) {
        closes_cycle = up == i;
      }
      if (!closes_cycle) causes[i] = cause;
      break;
    }
  }
  return causes;
}

// A consequence never outranks its cause, whatever the probe did: two findings of one change
// must not swap places because a noisy run moved a job. Each finding without a cause keeps its
// rank and is followed by its consequences (depth first, each group in rank order), their scores
// capped at the cause's. In a check a consequence of another severity keeps its own place: a
// check lists what needs attention first.
void place_after_causes(std::vector<Finding>& findings, RankOrder order) {
  const std::vector<std::size_t> causes = causes_of(findings, order);
  std::vector<std::vector<std::size_t>> consequences(findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (causes[i] != kNoCause) consequences[causes[i]].push_back(i);
  }
  std::vector<Finding> placed;
  placed.reserve(findings.size());
  std::vector<std::size_t> pending;
  for (std::size_t root = 0; root < findings.size(); ++root) {
    if (causes[root] != kNoCause) continue;
    pending.push_back(root);
    while (!pending.empty()) {
      const std::size_t next = pending.back();
      pending.pop_back();
      for (auto child = consequences[next].rbegin(); child != consequences[next].rend(); ++child) {
        findings[*child].score = std::min(findings[*child].score, findings[next].score);
        pending.push_back(*child);
      }
      placed.push_back(std::move(findings[next]));
    }
  }
  findings = std::move(placed);
}

}  // namespace

void rank_findings(std::vector<Finding>& findings, const std::vector<JobComparison>& probe_jobs,
                   RankOrder order) {
  for (auto& finding : findings) {
    // An improvement is reported as info but weighs what the setting weighs: it may be the very
    // change that explains a faster B.
    const Severity weight =
        finding.direction == Direction::kImproved ? finding.rule->severity : finding.severity;
    finding.score = severity_weight(weight) * finding.rule->magnitude *
                    relevance_factor(finding, probe_jobs) * (finding.proof.empty() ? 1 : 2);
  }
  std::stable_sort(findings.begin(), findings.end(), [order](const Finding& x, const Finding& y) {
    if (order == RankOrder::kSeverityThenScore && x.severity != y.severity) {
      return x.severity > y.severity;
    }
    if (x.score != y.score) return x.score > y.score;
    return x.severity > y.severity;
  });
  place_after_causes(findings, order);
}

}  // namespace kdrift
