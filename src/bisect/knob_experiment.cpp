#include "bisect/knob_experiment.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "bisect/knob_switch.h"
#include "diff/statistics.h"

namespace kdrift {
namespace {

Status stopped_by(int signal) {
  return content_error("bisect knobs: stopped by signal " + std::to_string(signal) +
                       "; every knob is back at its good value");
}

// One round: the baseline, then each testable knob alone. An exception while measuring unwinds
// through the applied knob, which puts the good value back.
Status run_round(KnobExperiment& experiment, KnobBench& bench, const SysRoot& root,
                 const TrustedDir& records) {
  auto baseline = bench.measure(experiment.metric, experiment.target);
  if (!baseline) return baseline.error();
  experiment.baseline.push_back(*baseline);
  if (const int signal = bench.stop_signal(); signal != 0) return stopped_by(signal);
  for (KnobRow& row : experiment.rows) {
    if (!row.why.empty()) continue;
    auto held = AppliedKnob::apply(root, records, row.knob);
    if (!held) {
      row.why = "could not apply it: " + held.error().describe();
      row.values.clear();
      continue;
    }
    auto value = bench.measure(experiment.metric, experiment.target);
    if (!value) return value.error();
    row.values.push_back(*value);
    if (auto restored = held->restore(); !restored) {
      return content_error("bisect knobs: could not restore " + row.knob.label + ": " +
                           restored.error().describe() + " (the record stays in " +
                           records.path_of(kAppliedKnobRecord) + "; the next run retries)");
    }
    if (const int signal = bench.stop_signal(); signal != 0) return stopped_by(signal);
  }
  return ok_status();
}

// Knobs that move the metric toward bad first, the largest change first; then the other tested
// ones by p; then the untested ones in snapshot order.
void rank(std::vector<KnobRow>& rows) {
  auto order = [](const KnobRow& row) {
    if (!row.effect) return 2;
    return row.effect->direction == KnobDirection::kTowardBad ? 0 : 1;
  };
  // |ln ratio|; a baseline median of 0 makes any change unbounded.
  auto size = [](const KnobRow& row) {
    const double size = std::fabs(std::log(row.effect->ratio));
    return std::isnan(size) ? HUGE_VAL : size;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const KnobRow& a, const KnobRow& b) {
    if (order(a) != order(b)) return order(a) < order(b);
    if (order(a) == 0) return size(a) > size(b);
    if (order(a) == 1) return a.effect->p < b.effect->p;
    return false;
  });
}

Json row_json(const KnobRow& row, bool dry_run) {
  Json knob = {{"label", row.knob.label},
               {"path", row.knob.path},
               {"good", row.knob.good},
               {"bad", row.knob.bad},
               {"live", row.live}};
  if (!row.why.empty()) {
    knob["status"] = "not tested";
    knob["why"] = row.why;
  } else if (!row.effect) {
    knob["status"] = dry_run ? "planned" : "not tested";
  } else {
    knob["status"] = direction_name(row.effect->direction);
    knob["values"] = row.values;
    knob["median"] = median(row.values);
    knob["ratio"] = std::isfinite(row.effect->ratio) ? Json(row.effect->ratio) : Json();
    knob["p"] = row.effect->p;
    knob["restored"] = true;  // a failed restore stops the command before its report
  }
  return knob;
}

// The Bonferroni split's fields, and why the rounds cannot resolve when they cannot.
Json plan_json(const KnobExperiment& experiment) {
  Json plan = {{"planned", experiment.planned},
               {"alpha", kKnobAlpha},
               {"alpha_per_knob", experiment.alpha_per_knob},
               {"runs", experiment.runs},
               {"resolvable", experiment.runs >= experiment.needed}};
  if (experiment.runs < experiment.needed) {
    plan["resolution"] = std::to_string(experiment.runs) + " runs per side cannot reach p <= " +
                         Json(experiment.alpha_per_knob).dump() + " (alpha " +
                         Json(kKnobAlpha).dump() + " over " + std::to_string(experiment.planned) +
                         " knobs): give --runs " + std::to_string(experiment.needed) + " or more";
  }
  return plan;
}

}  // namespace

KnobExperiment plan_knob_experiment(const Json& good, const Json& bad, const SysRoot& root,
                                    const Result<std::string>& target_disk, ProbeMetric metric,
                                    std::string target, int runs) {
  KnobExperiment experiment;
  experiment.metric = std::move(metric);
  experiment.target = std::move(target);
  for (RuntimeKnob& knob : differing_knobs(good, bad)) {
    const auto live = read_knob(root, knob.path);
    KnobRow row{std::move(knob), live ? *live : "", "", {}, std::nullopt};
    row.why = untested_reason(row.knob, live, target_disk);
    experiment.rows.push_back(std::move(row));
  }
  experiment.planned = std::count_if(experiment.rows.begin(), experiment.rows.end(),
                                     [](const KnobRow& row) { return row.why.empty(); });
  experiment.alpha_per_knob =
      kKnobAlpha / static_cast<double>(std::max<std::ptrdiff_t>(experiment.planned, 1));
  experiment.needed = runs_to_resolve(experiment.alpha_per_knob);
  experiment.runs = runs > 0 ? runs : experiment.needed;
  return experiment;
}

Status run_knob_rounds(KnobExperiment& experiment, KnobBench& bench, const SysRoot& root,
                       const TrustedDir& records, std::ostream& progress) {
  for (int round = 1; round <= experiment.runs; ++round) {
    progress << "round " << round << " of " << experiment.runs << "\n";
    if (auto done = run_round(experiment, bench, root, records); !done) return done;
  }
  const bool higher_is_better = experiment.metric.statistic == "iops";
  for (KnobRow& row : experiment.rows) {
    if (row.why.empty()) {
      row.effect =
          knob_effect(experiment.baseline, row.values, experiment.alpha_per_knob, higher_is_better);
    }
  }
  return ok_status();
}

Json knob_experiment_json(const KnobExperiment& experiment, bool dry_run) {
  Json report = plan_json(experiment);
  if (!experiment.baseline.empty()) {
    report["baseline"] = {{"values", experiment.baseline}, {"median", median(experiment.baseline)}};
  }
  std::vector<KnobRow> rows = experiment.rows;
  rank(rows);
  Json knobs = Json::array();
  Json toward_bad = Json::array();
  for (const KnobRow& row : rows) {
    knobs.push_back(row_json(row, dry_run));
    if (row.effect && row.effect->direction == KnobDirection::kTowardBad) {
      toward_bad.push_back(row.knob.label);
    }
  }
  report["tested"] = std::count_if(rows.begin(), rows.end(),
                                   [](const KnobRow& row) { return row.effect.has_value(); });
  report["knobs"] = std::move(knobs);
  report["toward_bad"] = std::move(toward_bad);
  return report;
}

}  // namespace kdrift
