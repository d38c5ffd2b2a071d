#include "cli/bisect_measure.h"

#include "bisect/probe_metric.h"
#include "cli/probe_arguments.h"
#include "collect/capture.h"
#include "model/job_result.h"
#include "model/percentile_set.h"
#include "rules/finding_signature.h"
#include "snapshot/json_access.h"
#include "util/fatal.h"
#include "util/text.h"

namespace kdrift {
namespace {

Json signature_json(const FindingObservation& observation) {
  return {{"present", observation.present}, {"signature", observation.signature}};
}

}  // namespace

std::vector<double> measure_probe_metric(const ProbeMetric& metric, const std::string& target,
                                         int runs) {
  ProbeArguments args;
  args.profile = metric.profile;
  args.target = target;
  args.engines = metric.engine;
  args.iodepths = std::to_string(metric.iodepth);
  const Profile profile = args.resolve_profile();
  const ProbeOptions options = args.resolve_options(profile);
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(runs));
  for (int run = 0; run < runs; ++run) {
    auto value = metric_value(metric, run_probe_or_exit(profile, options));
    // A run that did not produce the figure is an infrastructure failure, never a bad sample.
    if (!value)
      throw FatalError("bisect: a probe run gave no sample: " + value.error().describe() +
                       " (nothing recorded)");
    values.push_back(*value);
  }
  return values;
}

Json judge_by_finding(const Session& session, std::size_t candidate, const std::vector<Rule>& rules,
                      const SysRoot& root, const TrustedDir& folder,
                      const std::string& snapshot_name) {
  const BisectStart& start = session.start;
  const std::string& id = std::get<FindingMetric>(start.metric).rule_id;
  auto rule = functional_rule(rules, id);
  if (!rule) throw FatalError("bisect step: " + rule.error().describe());
  Json snapshot = capture_snapshot(root);
  if (!start.profile.empty()) {
    ProbeArguments args;
    args.profile = start.profile;
    args.target = start.target.empty() ? "." : start.target;
    const Profile profile = args.resolve_profile();
    snapshot["probe"] = run_probe_or_exit(profile, args.resolve_options(profile));
  }
  const std::string snapshot_path = folder.path_of(snapshot_name);
  if (auto saved = folder.replace_file(snapshot_name, to_text(snapshot)); !saved) {
    throw FatalError("bisect step: " + saved.error().describe());
  }
  const FindingObservation observation = observe_finding(**rule, snapshot, Judgements::kMade);
  const Json seen = signature_json(observation);
  const Json& bad = session.details[start.bad];
  const Json& good = session.details[start.good];
  std::string verdict;
  std::string why;
  if (candidate == start.bad) {
    verdict = "bad";
    why = "the bad endpoint defines bad";
  } else if (bad.is_object() && bad.value("observed", Json()) == seen) {
    verdict = "bad";
    why = "as on the bad endpoint";
  } else if (candidate == start.good ||
             (good.is_object() && good.value("observed", Json()) == seen)) {
    verdict = "good";
    why = candidate == start.good ? "unlike the bad endpoint" : "as on the good endpoint";
  } else {
    verdict = "skip";
    why = "neither endpoint's behaviour";
  }
  Json event = verdict_event(start.candidates[candidate].name, verdict, "step");
  event["details"] = {{"observed", seen},
                      {"evidence", observation.evidence},
                      {"why", (observation.present ? id + " present, " : id + " absent, ") + why},
                      {"snapshot", snapshot_path}};
  return event;
}

}  // namespace kdrift
