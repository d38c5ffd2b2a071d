#include "diff/probe_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>

#include "diff/statistics.h"
#include "model/job_result.h"
#include "model/percentile_set.h"
#include "snapshot/json_access.h"

namespace kdrift {
namespace {

std::vector<double> as_doubles(const std::vector<uint64_t>& values) {
  return {values.begin(), values.end()};
}

std::vector<double> iops_samples(const DirectionResult& stats) {
  if (!stats.iops_per_second || !stats.iops_per_second->samples) return {};
  return *stats.iops_per_second->samples;
}

std::vector<double> latency_samples(const DirectionResult& stats, std::string_view key) {
  return stats.lat ? as_doubles(stats.lat->per_second_of(key)) : std::vector<double>{};
}

std::optional<double> percentile_of(const DirectionResult& stats, std::string_view key) {
  if (!stats.lat) return std::nullopt;
  const auto value = stats.lat->percentile(key);
  return value ? std::optional(static_cast<double>(*value)) : std::nullopt;
}

Json stats_json(const DirectionResult& stats) {
  Json out = Json::object();
  if (stats.iops) out["iops"] = *stats.iops;
  if (stats.iops_per_second) out["iops_per_second"] = stats.iops_per_second->to_json();
  if (stats.lat) {
    Json lat = Json::object();
    if (stats.lat->mean) lat["mean"] = *stats.lat->mean;
    if (stats.lat->percentiles) lat["percentile"] = *stats.lat->percentiles;
    out["lat_ns"] = std::move(lat);
  }
  return out;
}

bool enough_samples(std::size_t a, std::size_t b, double alpha) {
  return a >= 2 && b >= 2 && smallest_two_sided_p(a, b) < alpha;
}

// The per-second samples a side that let the rank test reach p < alpha at all.
std::size_t seconds_to_reach(double alpha) {
  std::size_t n = 2;
  while (n < kMaxDecidingSamples && smallest_two_sided_p(n, n) >= alpha)
    ++n;
  return n;
}

// Each run's per-second spread as a whole: the median over its jobs of their per-second
// coefficients of variation. The host's drift lands on every job of a run alike, but not every job
// shows it inside the run: in the TCG lab an io_uring+iopoll job ran with a per-second spread of a
// few percent while the run's other jobs spread 13-15 %, and a second boot of the same scenario
// moved that job by x0.71.
struct RunSpread {
  double a = 0;
  double b = 0;
};

// The noise a re-run adds to a log ratio, which a change must be judged against: measured between
// rounds when both sides ran the job several times, else estimated from the per-second spread.
// `rounds` is the smaller side's count (1 without rounds): what a recommendation of more rounds
// starts from.
struct Allowance {
  double standard_error = 0;
  double degrees = 1;
  bool from_rounds = false;
  std::size_t rounds = 1;

  // The factor a re-run could move a ratio by, at alpha: Student's t times the standard error.
  double factor(double alpha) const {
    if (!(standard_error > 0)) return 1;
    return std::exp(student_t_quantile(1 - alpha / 2, std::max(degrees, 1.0)) * standard_error);
  }
};

Allowance larger(const Allowance& x, const Allowance& y, double alpha) {
  return x.factor(alpha) >= y.factor(alpha) ? x : y;
}

// The per-second spread stands in for a run-to-run spread one run a side cannot show, and runs
// can drift more than seconds do: in the TCG lab the two were equal (0.13-0.15), on this VM's
// zram runs moved 15 % where seconds moved 12 %, and with the stand-in taken as it is one round a
// side called a change in 1.6-2.5 % of unchanged pairs (kdrift_verdict_sim, zram model). So
// without rounds it is taken 1.25 times, the most by which runs have been measured to exceed
// seconds (with rounds the runs are seen, and the pooled seconds are a floor as they are).
inline constexpr double kStandInInflation = 1.25;

// How far a re-run of the same job could plausibly move its median: one run per side shows only
// the noise inside each run, and the host's slower drift (other tenants, frequency, an emulator's
// scheduling) moves a whole run. Lacking a second run, the spread of per-second values stands in
// for the run-to-run spread, the job's own or its run's, whichever is larger: in kdrift's QEMU
// lab, 20 runs of one scenario gave a run-to-run spread of log median IOPS of 0.13-0.15 and a mean
// within-run coefficient of variation of 0.13-0.15. On quiet hardware (per-second CV of 1-2 %)
// that is below the 5 % margin and changes nothing.
Allowance per_second_allowance(const std::vector<double>& a, const std::vector<double>& b,
                               RunSpread run = {}, double inflation = 1) {
  const double spread_a = std::max(inflation * coefficient_of_variation(a), run.a);
  const double spread_b = std::max(inflation * coefficient_of_variation(b), run.b);
  if (!std::isfinite(spread_a) || !std::isfinite(spread_b)) return {};
  return {std::sqrt(spread_a * spread_a + spread_b * spread_b),
          static_cast<double>(a.size() + b.size()) - 2, false, 1};
}

// One round a side cannot show how far a re-run moves, and the per-second spread that stands in
// for it understates it wherever runs drift more than seconds do: with 3 % per second and 5 % run
// to run (kdrift_verdict_sim's default model) one round a side called a change in 8 % of pairs
// that had none. Until rounds show it, each side's run-to-run spread is taken as at least 5 %, the
// least the lab has measured between runs (0.052, docs/benchmarks.md "Run-to-run spread in the
// lab"; this VM's zram shows 0.15); that brought them to 1 in 300 (kdrift_verdict_sim 300).
inline constexpr double kUnseenRunToRunCv = 0.05;

RunSpread unseen_floor(RunSpread run, const Allowance& rounds) {
  if (rounds.from_rounds) return run;
  return {std::max(run.a, kUnseenRunToRunCv), std::max(run.b, kUnseenRunToRunCv)};
}

// From the spread between rounds: the standard error of the difference of the sides' log means.
// Nothing when a side has fewer than two rounds.
std::optional<Allowance> rounds_allowance(const std::vector<double>& a,
                                          const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  const double spread_a = coefficient_of_variation(a);
  const double spread_b = coefficient_of_variation(b);
  if (!std::isfinite(spread_a) || !std::isfinite(spread_b)) return std::nullopt;
  return Allowance{std::sqrt(spread_a * spread_a / static_cast<double>(a.size()) +
                             spread_b * spread_b / static_cast<double>(b.size())),
                   static_cast<double>(a.size() + b.size()) - 2, true,
                   std::min(a.size(), b.size())};
}

// One metric's test, as the entry shows it and as its verdict.
struct MetricTest {
  Json json = Json::object();
  Verdict verdict;
};

// The interval the verdict is decided on: the bootstrap interval of the per-second medians'
// ratio at 1 - alpha, each half widened by what a re-run could add (in log terms the half-widths
// add in quadrature, both being quantiles at the same level). What would decide an undecided
// one is more rounds inside one boot; across boots the per-second spread stays a floor under the
// rounds' (Boots) that no count of rounds shrinks, so there it is more snapshots a side, each with
// the noise this pair shows (a count of rounds there could name a run that cannot decide).
RatioEstimate with_run_to_run_noise(const RatioInterval& interval, const Allowance& allowance,
                                    double alpha, Boots boots) {
  const double confidence = 1 - alpha;
  const double center = std::log(interval.estimate);
  const double noise = std::log(allowance.factor(alpha));
  const double down = center - std::log(interval.low);
  const double up = std::log(interval.high) - center;
  const double within = (down + up) / 2 / normal_quantile(1 - alpha / 2);
  const double variance = within * within + allowance.standard_error * allowance.standard_error;
  const bool in_rounds = boots == Boots::kSame;
  const std::size_t now = in_rounds ? allowance.rounds : 1;
  return {interval.estimate,
          std::exp(center - std::hypot(down, noise)),
          std::exp(center + std::hypot(up, noise)),
          confidence,
          variance * static_cast<double>(now),
          in_rounds ? SampleUnit::kRounds : SampleUnit::kSnapshots,
          now};
}

// Ratio of medians b/a with its interval and verdict; "worse" is a ratio below 1 for IOPS and
// above 1 for latency. The 95 % bootstrap interval (ci95) and the rank test's p describe the
// runs themselves; the verdict's interval adds the run-to-run noise and is the one that decides.
MetricTest ratio_test(const std::vector<double>& a, const std::vector<double>& b, double alpha,
                      bool higher_is_better, const Allowance& floor, Boots boots) {
  const RatioInterval within = bootstrap_median_ratio(a, b);
  const RatioInterval decided = bootstrap_median_ratio(a, b, 2000, 1 - alpha);
  const RankTest test = mann_whitney_u(a, b);
  const Allowance allowance =
      floor.from_rounds ? floor : larger(per_second_allowance(a, b), floor, alpha);
  MetricTest out;
  if (std::isfinite(within.estimate)) out.json["ratio"] = within.estimate;
  if (std::isfinite(within.low) && std::isfinite(within.high)) {
    out.json["ci95"] = {within.low, within.high};
  }
  out.json["p_value"] = test.p_value;
  const double factor = allowance.factor(alpha);
  out.json["noise_allowance"] = {1 / factor, factor};
  out.json["noise_from"] = allowance.from_rounds ? "rounds" : "per-second spread";
  out.verdict =
      decide_ratio(with_run_to_run_noise(decided, allowance, alpha, boots), higher_is_better);
  const bool runs_differ = decided.low > 1 || decided.high < 1;
  if (runs_differ && out.verdict.state != VerdictState::kChanged &&
      std::abs(std::log(decided.estimate)) > -std::log1p(-kEquivalenceMargin)) {
    out.json["within_run_to_run_noise"] = true;
  }
  out.verdict.write_to(out.json);
  return out;
}

// Every entry of a probe section's jobs; one that is not an object reads as a job with nothing in
// it, which compares as a job that completed no I/O.
std::vector<JobResult> job_results(const Json& jobs) {
  std::vector<JobResult> out;
  out.reserve(jobs.size());
  for (const auto& entry : jobs) {
    auto result = JobResult::from_json(entry);
    out.push_back(result ? std::move(*result) : JobResult{});
  }
  return out;
}

// Each round's value of the main direction's IOPS (an empty key) or of a tracked percentile of
// its total latency; empty unless every round has it.
std::vector<double> round_values(const JobResult& job, std::string_view key) {
  std::vector<double> out;
  if (!job.rounds) return out;
  for (const auto& round : *job.rounds) {
    const DirectionResult* main = round.main_direction();
    if (main == nullptr) return {};
    const auto value = key.empty() ? main->iops : percentile_of(*main, key);
    if (!value) return {};
    out.push_back(*value);
  }
  return out;
}

// Every round's per-second IOPS, pooled; the entry's own when the rounds do not all carry them.
std::vector<double> pooled_iops_samples(const JobResult& job, const DirectionResult& entry) {
  std::vector<double> out;
  if (job.rounds) {
    for (const auto& round : *job.rounds) {
      const DirectionResult* main = round.main_direction();
      if (main == nullptr) return iops_samples(entry);
      const auto samples = iops_samples(*main);
      if (samples.empty()) return iops_samples(entry);
      out.insert(out.end(), samples.begin(), samples.end());
    }
  }
  return out.empty() ? iops_samples(entry) : out;
}

// The allowance for one metric (an empty key: IOPS): from the rounds when both sides have them,
// never below `floor`; else `floor`, which the per-second estimate may still raise.
Allowance allowance_for(const JobResult& a, const JobResult& b, std::string_view key, double alpha,
                        const Allowance& floor) {
  if (const auto rounds = rounds_allowance(round_values(a, key), round_values(b, key))) {
    Allowance out = larger(*rounds, floor, alpha);
    out.from_rounds = true;
    out.rounds = rounds->rounds;
    return out;
  }
  return floor;
}

// A job's verdict from its metrics': worse when its throughput or a latency percentile is (a
// tail that grew while the IOPS held is still a regression for a database), better when one is
// better and none worse, equivalent only when every judged metric is, else inconclusive. The
// samples that would decide an inconclusive job: one metric that turns out changed decides it,
// so while some undecided metric's ratio lies outside the margin, the fewest that one needs;
// when all lie inside, every one must come to equivalence, so the most any needs.
Verdict combined_verdict(const std::vector<Verdict>& metrics) {
  const auto any = [&](auto predicate) {
    return std::any_of(metrics.begin(), metrics.end(), predicate);
  };
  if (any([](const Verdict& v) { return v.regressed(); })) {
    return Verdict::changed(ChangeDirection::kRegression, metrics.front().bounds);
  }
  if (any([](const Verdict& v) { return v.improved(); })) {
    return Verdict::changed(ChangeDirection::kImprovement, metrics.front().bounds);
  }
  if (!any([](const Verdict& v) { return v.state != VerdictState::kEquivalent; })) {
    return Verdict::equivalent(*metrics.front().bounds);
  }
  const double band = -std::log1p(-kEquivalenceMargin);
  std::optional<DecidingSamples> toward_change;
  std::optional<DecidingSamples> toward_equivalence;
  for (const Verdict& metric : metrics) {
    if (metric.state != VerdictState::kInconclusive || !metric.decide) continue;
    const DecidingSamples& decide = *metric.decide;
    const bool outside =
        metric.bounds && std::abs(std::log(metric.bounds->ratio)) > band && !decide.beyond_reach;
    auto& slot = outside ? toward_change : toward_equivalence;
    const bool better =
        !slot ||
        (outside ? decide.needed < slot->needed
                 : !slot->beyond_reach && (decide.beyond_reach || decide.needed > slot->needed));
    if (better) slot = decide;
  }
  return Verdict::inconclusive(toward_change ? toward_change : toward_equivalence,
                               metrics.front().bounds);
}

// Each tracked percentile's whole-run values and, with enough per-second samples, its test.
// At a fixed queue depth latency is depth over IOPS (Little's law): whatever moved the job's
// IOPS by iops_scale (B's median over A's) moved every percentile by its inverse, and the IOPS
// test has judged that change already. So each percentile is tested on B's per-second values
// times iops_scale: the change beyond what the IOPS explains, a tail that grew while the
// throughput held. Judged raw, one change counted twice: in 20 pairs of lab boots of one
// scenario, two had their polled job's IOPS at x0.72-0.81, inside the rounds' allowance, and
// its p50 at x1.56, just outside it (x1.12 beyond the IOPS change).
//
// A second's percentile rests on the I/Os beyond it: at 8k IOPS a second's p99.9 is its 8th
// slowest I/O, and one host hiccup moves it. Such a percentile gets no per-second verdict: in the
// same lab pairs, a p99.9 moved x1.92 (p = 0.009) with the IOPS at x0.94.
struct ThroughputChange {
  double scale = 1;           // B's median per-second IOPS over A's
  double ios_per_second = 0;  // the lower side's median
};
inline constexpr double kMinIosBeyondPercentile = 100;

struct LatencyComparison {
  Json json = Json::object();
  std::vector<Verdict> verdicts;  // of the percentiles judged
};

LatencyComparison compare_latency(const JobResult& job_a, const JobResult& job_b,
                                  const DirectionResult& a, const DirectionResult& b, double alpha,
                                  const Allowance& floor, ThroughputChange throughput,
                                  Boots boots) {
  LatencyComparison out;
  for (const auto& percentile : kTrackedPercentiles) {
    const auto value_a = percentile_of(a, percentile.key);
    const auto value_b = percentile_of(b, percentile.key);
    if (!value_a || !value_b) continue;
    Json entry = {{"a", *value_a}, {"b", *value_b}};
    if (*value_a > 0) entry["ratio"] = *value_b / *value_a;
    const auto seconds_a = latency_samples(a, percentile.key);
    auto seconds_b = latency_samples(b, percentile.key);
    const double beyond = throughput.ios_per_second * (1 - percentile.value / 100);
    const bool enough = enough_samples(seconds_a.size(), seconds_b.size(), alpha);
    if (enough && beyond < kMinIosBeyondPercentile) {
      entry["reason"] = "a second's " + std::string(percentile.label) + " rests on " +
                        std::to_string(static_cast<long>(beyond)) + " I/Os beyond it, fewer than " +
                        std::to_string(static_cast<long>(kMinIosBeyondPercentile)) + ": no verdict";
    } else if (enough) {
      for (double& value : seconds_b)
        value *= throughput.scale;
      MetricTest test =
          ratio_test(seconds_a, seconds_b, alpha, false,
                     allowance_for(job_a, job_b, percentile.key, alpha, floor), boots);
      for (auto& [field, value] : test.json.items()) {
        if (field != "ratio") entry[field] = value;
      }
      // The verdict is about the per-second medians, which can differ from the whole run's, net
      // of the IOPS change; the median of B's values scaled is B's median scaled.
      if (test.json.contains("ratio")) {
        entry["beyond_iops_ratio"] = test.json["ratio"];
        entry["per_second_ratio"] = test.json["ratio"].get<double>() / throughput.scale;
      }
      out.verdicts.push_back(test.verdict);
    }
    out.json[std::string(percentile.key)] = std::move(entry);
  }
  return out;
}

// The IOPS test's members of the job's comparison.
Verdict add_iops_test(Json& out, const std::vector<double>& samples_a,
                      const std::vector<double>& samples_b, double alpha,
                      const Allowance& allowance, Boots boots) {
  MetricTest iops = ratio_test(samples_a, samples_b, alpha, true, allowance, boots);
  const Json& test = iops.json;
  if (test.contains("ratio")) out["iops_ratio"] = test["ratio"];
  if (test.contains("ci95")) out["iops_ci95"] = test["ci95"];
  if (test.contains("interval")) out["iops_interval"] = test["interval"];
  out["p_value"] = test["p_value"];
  out["iops_noise_allowance"] = test["noise_allowance"];
  out["iops_noise_from"] = test["noise_from"];
  out["iops_verdict"] = test["verdict"];
  out["iops_state"] = test["state"];
  if (test.contains("within_run_to_run_noise")) {
    const double factor = test["noise_allowance"][1].get<double>();
    char reason[200];
    (void)std::snprintf(reason, sizeof reason,
                        "IOPS x%.2f is beyond these runs' per-second noise but inside x%.2f-x%.2f, "
                        "what %s says a re-run could move it",
                        test["ratio"].get<double>(), 1 / factor, factor,
                        allowance.from_rounds ? "the spread between rounds" : "the runs' spread");
    out["reason"] = reason;
  }
  return iops.verdict;
}

// "read" or "write": the direction that carried the job's I/O; empty when neither did.
std::string main_direction_name(const JobResult& job) {
  const DirectionResult* main = job.main_direction();
  if (main == nullptr) return "";
  return job.read && main == &*job.read ? "read" : "write";
}

// An entry that could not be compared, with why and what would let it be.
JobComparison not_compared(const JobResult& job, Json entry, std::string reason,
                           std::optional<DecidingSamples> decide = std::nullopt) {
  Verdict verdict = Verdict::inconclusive(decide);
  verdict.write_to(entry);
  entry["reason"] = std::move(reason);
  return {job.facts(), std::move(entry), verdict};
}

JobComparison compare_job(const JobResult& a, const JobResult& b, double alpha, RunSpread run,
                          Boots boots) {
  Json out = b.header_json();
  const std::string direction = main_direction_name(b);
  if (direction.empty() || main_direction_name(a) != direction) {
    return not_compared(b, std::move(out), "the job completed no I/O on one side");
  }
  out["direction"] = direction;
  const DirectionResult& stats_a = *a.main_direction();
  const DirectionResult& stats_b = *b.main_direction();
  out["a"] = stats_json(stats_a);
  out["b"] = stats_json(stats_b);
  const auto samples_a = pooled_iops_samples(a, stats_a);
  const auto samples_b = pooled_iops_samples(b, stats_b);
  if (stats_a.iops && stats_b.iops && *stats_a.iops > 0) {
    out["iops_ratio"] = *stats_b.iops / *stats_a.iops;
  }
  out["samples"] = {{"a", samples_a.size()}, {"b", samples_b.size()}};
  if (a.rounds || b.rounds) {
    out["rounds"] = {{"a", a.rounds ? a.rounds->size() : 1},
                     {"b", b.rounds ? b.rounds->size() : 1}};
  }
  const bool enough = enough_samples(samples_a.size(), samples_b.size(), alpha);
  // At a fixed queue depth latency is depth over IOPS (Little's law), so whatever moves a whole
  // run's IOPS moves its latency by the same factor. Per-second latency percentiles come from
  // histogram buckets and barely vary inside a run, so their own spread would understate that
  // drift; in the lab, two boots of one scenario moved p50 by 6-7 % at p < 0.005 while IOPS
  // stayed inside its allowance. So the IOPS allowance is the latency's floor too.
  // With rounds on both sides, the spread between them is the run-to-run noise itself; across
  // boots, never below the per-second estimate (Boots).
  const Allowance rounds = enough ? allowance_for(a, b, "", alpha, Allowance{}) : Allowance{};
  const Allowance per_second = per_second_allowance(samples_a, samples_b, unseen_floor(run, rounds),
                                                    rounds.from_rounds ? 1 : kStandInInflation);
  const bool rounds_suffice =
      rounds.from_rounds &&
      (boots == Boots::kSame || rounds.factor(alpha) >= per_second.factor(alpha));
  Allowance iops_allowance = rounds_suffice || !enough ? rounds : per_second;
  iops_allowance.rounds = rounds.rounds;
  const double median_a = samples_a.empty() ? 0 : median(samples_a);
  const double median_b = samples_b.empty() ? 0 : median(samples_b);
  ThroughputChange throughput;
  if (median_a > 0 && median_b > 0)
    throughput = {median_b / median_a, std::min(median_a, median_b)};
  LatencyComparison latency =
      compare_latency(a, b, stats_a, stats_b, alpha, iops_allowance, throughput, boots);
  out["latency"] = std::move(latency.json);
  if (!enough) {
    const std::size_t now = std::min(samples_a.size(), samples_b.size());
    return not_compared(b, std::move(out),
                        std::to_string(samples_a.size()) + " and " +
                            std::to_string(samples_b.size()) +
                            " per-second samples cannot reach p < alpha; run the probe longer",
                        DecidingSamples{SampleUnit::kSeconds, now, seconds_to_reach(alpha), false});
  }
  std::vector<Verdict> metrics = {
      add_iops_test(out, samples_a, samples_b, alpha, iops_allowance, boots)};
  metrics.insert(metrics.end(), latency.verdicts.begin(), latency.verdicts.end());
  const Verdict verdict = combined_verdict(metrics);
  verdict.write_to(out);
  return {b.facts(), std::move(out), verdict};
}

JobComparison only_in(const JobResult& job, Presence side) {
  Json entry = job.header_json();
  const Verdict verdict = Verdict::only_in(side);
  verdict.write_to(entry);
  return {job.facts(), std::move(entry), verdict};
}

// The median per-second spread of the jobs that ran; 0 when none has two samples.
double run_spread(const std::vector<JobResult>& results) {
  std::vector<double> spreads;
  for (const auto& job : results) {
    const DirectionResult* main = job.main_direction();
    if (job.status_or_ok() != "ok" || main == nullptr) continue;
    const double spread = coefficient_of_variation(iops_samples(*main));
    if (std::isfinite(spread)) spreads.push_back(spread);
  }
  return spreads.empty() ? 0 : median(std::move(spreads));
}

}  // namespace

Json ProbeComparison::to_json() const {
  if (unavailable) return {{"unavailable", *unavailable}};
  Json out = summary;
  out["jobs"] = Json::array();
  for (const auto& job : jobs)
    out["jobs"].push_back(job.entry);
  return out;
}

ProbeComparison compare_probes(const Json* a, const Json* b, double alpha, Boots boots) {
  ProbeComparison out;
  const Json* jobs_a = a != nullptr ? array_member(*a, "jobs") : nullptr;
  const Json* jobs_b = b != nullptr ? array_member(*b, "jobs") : nullptr;
  if (jobs_a == nullptr || jobs_b == nullptr) {
    out.unavailable =
        jobs_a == nullptr && jobs_b == nullptr
            ? "neither snapshot has probe results"
            : std::string("only ") + (jobs_a != nullptr ? "A" : "B") + " has probe results";
    return out;
  }
  const auto results_a = job_results(*jobs_a);
  const auto results_b = job_results(*jobs_b);
  const RunSpread spread{run_spread(results_a), run_spread(results_b)};
  std::map<std::string, const JobResult*> by_name_a;
  for (const auto& job : results_a)
    by_name_a.emplace(job.name, &job);
  std::map<std::string, bool> seen;
  for (const auto& job : results_b) {
    seen[job.name] = true;
    const auto other = by_name_a.find(job.name);
    if (other == by_name_a.end()) {
      out.jobs.push_back(only_in(job, Presence::kOnlyInB));
    } else if (job.status_or_ok() != "ok" || other->second->status_or_ok() != "ok") {
      out.jobs.push_back(not_compared(job, job.header_json(),
                                      "the job did not run on both sides (status " +
                                          other->second->status_or_ok() + " → " +
                                          job.status_or_ok() + ")"));
    } else {
      out.jobs.push_back(compare_job(*other->second, job, alpha, spread, boots));
    }
  }
  for (const auto& job : results_a) {
    if (seen.count(job.name) == 0) out.jobs.push_back(only_in(job, Presence::kOnlyInA));
  }
  out.summary = {{"alpha", alpha}, {"run_spread", {{"a", spread.a}, {"b", spread.b}}}};
  return out;
}

namespace {

// One side's entries of a job: per snapshot, the entry by that name that ran ok.
struct SideValues {
  std::vector<const JobResult*> entries;
  std::size_t missing = 0;  // snapshots without the job, or where it did not run
};

// A snapshot's jobs by name.
std::map<std::string, const JobResult*> jobs_by_name(const std::vector<JobResult>& results) {
  std::map<std::string, const JobResult*> out;
  for (const auto& job : results)
    out.emplace(job.name, &job);
  return out;
}

SideValues side_values(const std::vector<std::map<std::string, const JobResult*>>& side,
                       const std::string& name, const std::string& direction) {
  SideValues out;
  for (const auto& jobs : side) {
    const auto found = jobs.find(name);
    if (found == jobs.end() || found->second->status_or_ok() != "ok" ||
        main_direction_name(*found->second) != direction) {
      ++out.missing;
    } else {
      out.entries.push_back(found->second);
    }
  }
  return out;
}

// Log of each entry's value of a metric (an empty key: IOPS); entries without a positive value
// are left out.
std::vector<double> log_values(const SideValues& side, std::string_view key) {
  std::vector<double> out;
  for (const JobResult* entry : side.entries) {
    const DirectionResult& main = *entry->main_direction();
    const auto value = key.empty() ? main.iops : percentile_of(main, key);
    if (value && *value > 0) out.push_back(std::log(*value));
  }
  return out;
}

// The variance of one snapshot's log value of a metric (an empty key: IOPS) that its own run
// already shows, averaged over the side: with rounds, that of the median of its rounds (pi/2 times
// the rounds' variance over their count); without, for IOPS, the spread between its seconds, which
// in kdrift's QEMU lab matched the spread between runs. Snapshots taken back to back can agree by
// chance far more closely than a re-run would; each still carries at least this much noise.
double run_to_run_variance(const SideValues& side, std::string_view key) {
  double sum = 0;
  for (const JobResult* entry : side.entries) {
    const std::vector<double> rounds = round_values(*entry, key);
    double variance = 0;
    if (rounds.size() >= 2) {
      const double spread = coefficient_of_variation(rounds);
      variance = std::numbers::pi / 2 * spread * spread / static_cast<double>(rounds.size());
    } else if (key.empty()) {
      const double spread = coefficient_of_variation(iops_samples(*entry->main_direction()));
      variance = spread * spread;
    }
    if (std::isfinite(variance)) sum += variance;
  }
  return side.entries.empty() ? 0 : sum / static_cast<double>(side.entries.size());
}

// The test of one metric across snapshots: ratio of geometric means b/a, its interval at
// 1 - alpha (the 95 % one as ci95, for the runs themselves), p and verdict ("worse" is lower IOPS
// or higher latency). The noise of one snapshot is the larger of what the side's spread shows
// and what each snapshot's own runs show, so the samples that would decide it are counted in
// snapshots (hosts, for a fleet).
MetricTest snapshot_test(const SideValues& side_a, const SideValues& side_b, std::string_view key,
                         double alpha, bool higher_is_better, SampleUnit unit) {
  const auto a = log_values(side_a, key);
  const auto b = log_values(side_b, key);
  const VarianceFloor floor{run_to_run_variance(side_a, key), run_to_run_variance(side_b, key)};
  const MeanDifference shown = welch_t_test(a, b, 0.95, floor);
  const MeanDifference decided = welch_t_test(a, b, 1 - alpha, floor);
  MetricTest out;
  out.json = {{"samples", {{"a", a.size()}, {"b", b.size()}}}, {"p_value", shown.p_value}};
  out.json["run_to_run_cv"] = {{"a", std::sqrt(floor.a)}, {"b", std::sqrt(floor.b)}};
  if (std::isfinite(shown.difference)) out.json["ratio"] = std::exp(shown.difference);
  if (std::isfinite(shown.low) && std::isfinite(shown.high)) {
    out.json["ci95"] = {std::exp(shown.low), std::exp(shown.high)};
  }
  const std::size_t now = std::min(a.size(), b.size());
  double unit_variance = floor.a + floor.b;
  if (std::isfinite(decided.difference) && decided.high > decided.low) {
    const double half = (decided.high - decided.low) / 2;
    const double error = half / student_t_quantile(1 - alpha / 2, std::max(decided.df, 1.0));
    unit_variance = std::max(unit_variance, error * error * static_cast<double>(now));
  }
  if (!std::isfinite(decided.difference)) {
    out.verdict = Verdict::inconclusive(
        samples_to_decide(1, unit_variance, unit, now, 1 - alpha, kEquivalenceMargin));
  } else {
    out.verdict = decide_ratio({std::exp(decided.difference), std::exp(decided.low),
                                std::exp(decided.high), 1 - alpha, unit_variance, unit, now},
                               higher_is_better);
  }
  out.verdict.write_to(out.json);
  return out;
}

JobComparison compare_job_sets(const std::string& name, const SideValues& a, const SideValues& b,
                               const std::string& direction, double alpha, SampleUnit unit) {
  Json out = b.entries.front()->header_json();
  out["direction"] = direction;
  out["unit"] = "snapshot";
  out["snapshots"] = {{"a", a.entries.size()}, {"b", b.entries.size()}};
  if (a.missing + b.missing > 0) {
    out["not_run"] = {{"a", a.missing}, {"b", b.missing}};
  }
  Json values = {{"a", Json::array()}, {"b", Json::array()}};
  for (const auto& [label, side] : {std::pair{"a", &a}, std::pair{"b", &b}}) {
    for (const JobResult* entry : side->entries)
      values[label].push_back(entry->main_direction()->iops.value_or(0));
  }
  out["iops_values"] = std::move(values);
  // Geometric means: what the ratio compares, shown where a pair's medians would be.
  for (const auto& [label, side] : {std::pair{"a", &a}, std::pair{"b", &b}}) {
    const auto logs = log_values(*side, "");
    if (logs.empty()) continue;
    double sum = 0;
    for (const double value : logs)
      sum += value;
    out[label] = {{"iops", std::exp(sum / static_cast<double>(logs.size()))}};
  }
  const MetricTest iops = snapshot_test(a, b, "", alpha, true, unit);
  for (const auto& [from, to] :
       {std::pair{"ratio", "iops_ratio"}, std::pair{"ci95", "iops_ci95"},
        std::pair{"interval", "iops_interval"}, std::pair{"p_value", "p_value"},
        std::pair{"run_to_run_cv", "iops_run_to_run_cv"}, std::pair{"verdict", "iops_verdict"},
        std::pair{"state", "iops_state"}}) {
    if (iops.json.contains(from)) out[to] = iops.json[from];
  }
  std::vector<Verdict> metrics = {iops.verdict};
  Json latency = Json::object();
  for (const auto& percentile : kTrackedPercentiles) {
    if (log_values(a, percentile.key).empty() || log_values(b, percentile.key).empty()) continue;
    MetricTest test = snapshot_test(a, b, percentile.key, alpha, false, unit);
    metrics.push_back(test.verdict);
    latency[std::string(percentile.key)] = std::move(test.json);
  }
  out["latency"] = std::move(latency);
  const Verdict verdict = iops.verdict.bounds ? combined_verdict(metrics) : iops.verdict;
  verdict.write_to(out);
  if (!iops.verdict.bounds) {
    out["reason"] = name + " ran on one " + (unit == SampleUnit::kHosts ? "host" : "snapshot") +
                    " a side: the spread between them needs two on at least one side";
  }
  return {b.entries.front()->facts(), std::move(out), verdict};
}

}  // namespace

ProbeComparison compare_probe_sets(const std::vector<const Json*>& a,
                                   const std::vector<const Json*>& b, double alpha,
                                   SampleUnit unit) {
  if (a.size() == 1 && b.size() == 1) return compare_probes(a.front(), b.front(), alpha);
  std::vector<std::vector<JobResult>> results_a;
  std::vector<std::vector<JobResult>> results_b;
  for (const auto& [side, into] : {std::pair{&a, &results_a}, std::pair{&b, &results_b}}) {
    for (const Json* probe : *side) {
      const Json* jobs = probe != nullptr ? array_member(*probe, "jobs") : nullptr;
      into->push_back(jobs != nullptr ? job_results(*jobs) : std::vector<JobResult>{});
    }
  }
  std::vector<std::map<std::string, const JobResult*>> by_name_a;
  std::vector<std::map<std::string, const JobResult*>> by_name_b;
  for (const auto& results : results_a)
    by_name_a.push_back(jobs_by_name(results));
  for (const auto& results : results_b)
    by_name_b.push_back(jobs_by_name(results));
  // Every job name, in the order the snapshots list them, B's first.
  std::vector<std::pair<std::string, const JobResult*>> names;
  std::map<std::string, bool> seen;
  for (const auto* side : {&results_b, &results_a}) {
    for (const auto& results : *side) {
      for (const auto& job : results) {
        if (seen.emplace(job.name, true).second) names.emplace_back(job.name, &job);
      }
    }
  }
  ProbeComparison out;
  for (const auto& [name, any] : names) {
    const std::string direction = main_direction_name(*any);
    const SideValues side_a = side_values(by_name_a, name, direction);
    const SideValues side_b = side_values(by_name_b, name, direction);
    if (side_a.entries.empty() && side_b.entries.empty()) {
      out.jobs.push_back(
          not_compared(*any, any->header_json(), "the job did not run on a side's snapshots"));
    } else if (side_a.entries.empty() || side_b.entries.empty()) {
      out.jobs.push_back(
          only_in(*any, side_a.entries.empty() ? Presence::kOnlyInB : Presence::kOnlyInA));
    } else {
      out.jobs.push_back(compare_job_sets(name, side_a, side_b, direction, alpha, unit));
    }
  }
  out.summary = {
      {"alpha", alpha}, {"unit", "snapshot"}, {"snapshots", {{"a", a.size()}, {"b", b.size()}}}};
  return out;
}

}  // namespace kdrift
