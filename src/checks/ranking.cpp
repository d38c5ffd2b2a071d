#include "checks/ranking.h"

#include <algorithm>

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

bool job_in(Relevance relevance, const Json& job) {
  const auto depth = number_member(job, "iodepth").value_or(1);
  const std::string rw = text_member(job, "rw");
  const std::string engine = text_member(job, "engine");
  switch (relevance) {
    case Relevance::kAny:
      return true;
    case Relevance::kHighIodepth:
      return depth >= 16;
    case Relevance::kLowIodepth:
      return depth <= 4;
    case Relevance::kSequential:
      return rw == "read" || rw == "write";
    case Relevance::kPolled:
      return engine.find("iopoll") != std::string::npos ||
             engine.find("hipri") != std::string::npos;
    case Relevance::kWrites:
      return rw.find("write") != std::string::npos;
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

Movement movement_for(Relevance relevance, const Json& probe_jobs) {
  Movement movement;
  if (!probe_jobs.is_array()) return movement;
  for (const auto& job : probe_jobs) {
    const std::string verdict = text_member(job, "verdict");
    if (verdict == "only-in-a" || verdict == "only-in-b") continue;
    movement.compared = true;
    const bool here = job_in(relevance, job);
    movement.ran_here = movement.ran_here || here;
    if (verdict == "regression") {
      movement.worse = true;
      movement.worse_here = movement.worse_here || here;
    } else if (verdict == "improvement") {
      movement.better = true;
      movement.better_here = movement.better_here || here;
    }
  }
  return movement;
}

double relevance_factor(const Finding& finding, const Json& probe_jobs) {
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

// The raised finding a rule follows from, if any: the first of its follows that is present.
const Finding* cause_of(const Finding& finding, const std::vector<Finding>& findings) {
  for (const auto& id : finding.rule->follows) {
    const auto cause = std::find_if(findings.begin(), findings.end(),
                                    [&](const Finding& other) { return other.rule->id == id; });
    if (cause != findings.end()) return &*cause;
  }
  return nullptr;
}

// A consequence never outranks its cause, whatever the probe did: two findings of one change
// must not swap places because a noisy run moved a job. It keeps its place when severity orders
// it above the cause (a check lists what needs attention first).
void place_after_causes(std::vector<Finding>& findings, RankOrder order) {
  // Each pass moves one finding down; a follows cycle in user rules must not loop forever.
  for (std::size_t pass = 0; pass < findings.size() * findings.size() + 1; ++pass) {
    bool moved = false;
    for (std::size_t i = 0; i < findings.size() && !moved; ++i) {
      const Finding* cause = cause_of(findings[i], findings);
      if (cause == nullptr) continue;
      const auto cause_at = static_cast<std::size_t>(cause - findings.data());
      if (cause_at < i) continue;
      if (order == RankOrder::kSeverityThenScore && findings[i].severity != cause->severity) {
        continue;
      }
      findings[i].score = std::min(findings[i].score, cause->score);
      std::rotate(findings.begin() + static_cast<std::ptrdiff_t>(i),
                  findings.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                  findings.begin() + static_cast<std::ptrdiff_t>(cause_at) + 1);
      moved = true;
    }
    if (!moved) return;
  }
}

}  // namespace

void rank_findings(std::vector<Finding>& findings, const Json& probe_jobs, RankOrder order) {
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
