#include "diff/probe_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "diff/statistics.h"
#include "snapshot/json_access.h"

namespace kdrift {
namespace {

constexpr const char* kLatencyPercentiles[] = {"50.000000", "99.000000", "99.900000"};

// The direction that carried the job's I/O: the one with more I/Os (mixed jobs report both).
std::string main_direction(const Json& job) {
  const Json* read = object_member(job, "read");
  const Json* write = object_member(job, "write");
  const double reads = read != nullptr ? number_member(*read, "ios").value_or(0) : 0;
  const double writes = write != nullptr ? number_member(*write, "ios").value_or(0) : 0;
  if (read != nullptr && (write == nullptr || reads >= writes)) return "read";
  return write != nullptr ? "write" : "";
}

std::vector<double> iops_samples(const Json& stats) {
  const Json* per_second = object_member(stats, "iops_per_second");
  return numbers_in(per_second != nullptr ? array_member(*per_second, "samples") : nullptr);
}

std::vector<double> latency_samples(const Json& stats, const char* key) {
  const Json* latency = object_member(stats, "lat_ns");
  const Json* per_second = latency != nullptr ? object_member(*latency, "per_second") : nullptr;
  return numbers_in(per_second != nullptr ? array_member(*per_second, key) : nullptr);
}

Json stats_json(const Json& stats) {
  Json out = Json::object();
  if (const auto iops = number_member(stats, "iops")) out["iops"] = *iops;
  if (const Json* per_second = object_member(stats, "iops_per_second")) {
    out["iops_per_second"] = *per_second;
  }
  if (const Json* latency = object_member(stats, "lat_ns")) {
    Json lat = Json::object();
    if (const auto mean = number_member(*latency, "mean")) lat["mean"] = *mean;
    if (const Json* percentiles = object_member(*latency, "percentile")) {
      lat["percentile"] = *percentiles;
    }
    out["lat_ns"] = std::move(lat);
  }
  return out;
}

std::optional<double> percentile_of(const Json& stats, const char* key) {
  const Json* latency = object_member(stats, "lat_ns");
  const Json* percentiles = latency != nullptr ? object_member(*latency, "percentile") : nullptr;
  return percentiles != nullptr ? number_member(*percentiles, key) : std::nullopt;
}

Json job_header(const Json& job) {
  Json out = {{"name", text_member(job, "name")}};
  for (const char* key : {"engine", "rw", "bs", "iodepth"}) {
    if (const Json* value = member(job, key)) out[key] = *value;
  }
  return out;
}

bool enough_samples(std::size_t a, std::size_t b, double alpha) {
  return a >= 2 && b >= 2 && smallest_two_sided_p(a, b) < alpha;
}

// How far a re-run of the same job could plausibly move its median, as a factor: one run per side
// shows only the noise inside each run, and the host's slower drift (other tenants, frequency,
// an emulator's scheduling) moves a whole run. Lacking a second run, the spread of each run's
// own per-second values stands in for the run-to-run spread: in kdrift's QEMU lab, 20 runs of one
// scenario gave a run-to-run spread of log median IOPS of 0.13-0.15 and a mean within-run
// coefficient of variation of 0.13-0.15. The change must exceed Student's t at alpha times the
// pooled spread, in log terms; on quiet hardware (per-second CV of 1-2 %) that is below the 5 %
// minimum effect and changes nothing.
double run_to_run_allowance(const std::vector<double>& a, const std::vector<double>& b,
                            double alpha) {
  const double spread_a = coefficient_of_variation(a);
  const double spread_b = coefficient_of_variation(b);
  if (!std::isfinite(spread_a) || !std::isfinite(spread_b)) return 1;
  const double degrees = static_cast<double>(a.size() + b.size()) - 2;
  const double t = student_t_quantile(1 - alpha / 2, degrees);
  return std::exp(t * std::sqrt(spread_a * spread_a + spread_b * spread_b));
}

// Ratio of medians b/a with its interval and test; "worse" is a ratio below 1 for IOPS and above
// 1 for latency. allowance_floor: a run-to-run allowance known from elsewhere that this metric's
// own spread must not undercut.
Json ratio_test(const std::vector<double>& a, const std::vector<double>& b, double alpha,
                bool higher_is_better, double allowance_floor = 1) {
  const RatioInterval interval = bootstrap_median_ratio(a, b);
  const RankTest test = mann_whitney_u(a, b);
  const double allowance = std::max(run_to_run_allowance(a, b, alpha), allowance_floor);
  Json out = Json::object();
  if (std::isfinite(interval.estimate)) out["ratio"] = interval.estimate;
  if (std::isfinite(interval.low) && std::isfinite(interval.high)) {
    out["ci95"] = {interval.low, interval.high};
  }
  out["p_value"] = test.p_value;
  out["noise_allowance"] = {1 / allowance, allowance};
  const bool significant = test.p_value < alpha;
  const bool lower = significant && interval.high < 1 && interval.estimate <= 1 - kMinimumEffect;
  const bool higher = significant && interval.low > 1 && interval.estimate >= 1 + kMinimumEffect;
  const bool beyond_noise = interval.estimate < 1 / allowance || interval.estimate > allowance;
  if ((lower || higher) && beyond_noise) {
    out["verdict"] = lower == higher_is_better ? "regression" : "improvement";
  } else {
    out["verdict"] = "no-significant-change";
    if (lower || higher) out["within_run_to_run_noise"] = true;
  }
  return out;
}

Json compare_job(const Json& a, const Json& b, double alpha) {
  Json out = job_header(b);
  const std::string direction = main_direction(b);
  if (direction.empty() || main_direction(a) != direction) {
    out["verdict"] = "insufficient-samples";
    out["reason"] = "the job completed no I/O on one side";
    return out;
  }
  out["direction"] = direction;
  const Json& stats_a = *object_member(a, direction);
  const Json& stats_b = *object_member(b, direction);
  out["a"] = stats_json(stats_a);
  out["b"] = stats_json(stats_b);
  const auto samples_a = iops_samples(stats_a);
  const auto samples_b = iops_samples(stats_b);
  const auto iops_a = number_member(stats_a, "iops");
  const auto iops_b = number_member(stats_b, "iops");
  if (iops_a && iops_b && *iops_a > 0) out["iops_ratio"] = *iops_b / *iops_a;
  out["samples"] = {{"a", samples_a.size()}, {"b", samples_b.size()}};
  // At a fixed queue depth latency is depth over IOPS (Little's law), so whatever moves a whole
  // run's IOPS moves its latency by the same factor. Per-second latency percentiles come from
  // histogram buckets and barely vary inside a run, so their own spread would understate that
  // drift; in the lab, two boots of one scenario moved p50 by 6-7 % at p < 0.005 while IOPS
  // stayed inside its allowance.
  const double latency_allowance_floor = enough_samples(samples_a.size(), samples_b.size(), alpha)
                                             ? run_to_run_allowance(samples_a, samples_b, alpha)
                                             : 1;
  Json latency = Json::object();
  bool latency_worse = false;
  bool latency_better = false;
  for (const char* key : kLatencyPercentiles) {
    const auto value_a = percentile_of(stats_a, key);
    const auto value_b = percentile_of(stats_b, key);
    if (!value_a || !value_b) continue;
    Json entry = {{"a", *value_a}, {"b", *value_b}};
    if (*value_a > 0) entry["ratio"] = *value_b / *value_a;
    const auto seconds_a = latency_samples(stats_a, key);
    const auto seconds_b = latency_samples(stats_b, key);
    if (enough_samples(seconds_a.size(), seconds_b.size(), alpha)) {
      Json test = ratio_test(seconds_a, seconds_b, alpha, false, latency_allowance_floor);
      for (const char* field :
           {"ci95", "p_value", "noise_allowance", "verdict", "within_run_to_run_noise"}) {
        if (test.contains(field)) entry[field] = test[field];
      }
      // The verdict is about the per-second medians, which can differ from the whole run's.
      if (test.contains("ratio")) entry["per_second_ratio"] = test["ratio"];
      latency_worse = latency_worse || test["verdict"] == "regression";
      latency_better = latency_better || test["verdict"] == "improvement";
    }
    latency[key] = std::move(entry);
  }
  out["latency"] = std::move(latency);
  if (!enough_samples(samples_a.size(), samples_b.size(), alpha)) {
    out["verdict"] = "insufficient-samples";
    out["reason"] = std::to_string(samples_a.size()) + " and " + std::to_string(samples_b.size()) +
                    " per-second samples cannot reach p < alpha; run the probe longer";
    return out;
  }
  Json iops = ratio_test(samples_a, samples_b, alpha, true);
  if (iops.contains("ratio")) out["iops_ratio"] = iops["ratio"];
  if (iops.contains("ci95")) out["iops_ci95"] = iops["ci95"];
  out["p_value"] = iops["p_value"];
  out["iops_noise_allowance"] = iops["noise_allowance"];
  out["iops_verdict"] = iops["verdict"];
  if (iops.contains("within_run_to_run_noise")) {
    const double allowance = iops["noise_allowance"][1].get<double>();
    char reason[200];
    (void)std::snprintf(
        reason, sizeof reason,
        "IOPS x%.2f is beyond these runs' per-second noise but inside x%.2f-x%.2f, what "
        "their own spread says a re-run could move it",
        iops["ratio"].get<double>(), 1 / allowance, allowance);
    out["reason"] = reason;
  }
  // A job regressed when its throughput or a latency percentile did; a tail that grew while the
  // IOPS held is still a regression for a database.
  if (iops["verdict"] == "regression" || latency_worse) {
    out["verdict"] = "regression";
  } else if (iops["verdict"] == "improvement" || latency_better) {
    out["verdict"] = "improvement";
  } else {
    out["verdict"] = "no-significant-change";
  }
  return out;
}

}  // namespace

Json compare_probes(const Json* a, const Json* b, double alpha) {
  const Json* jobs_a = a != nullptr ? array_member(*a, "jobs") : nullptr;
  const Json* jobs_b = b != nullptr ? array_member(*b, "jobs") : nullptr;
  if (jobs_a == nullptr || jobs_b == nullptr) {
    return {{"unavailable",
             jobs_a == nullptr && jobs_b == nullptr
                 ? "neither snapshot has probe results"
                 : std::string("only ") + (jobs_a != nullptr ? "A" : "B") + " has probe results"}};
  }
  std::map<std::string, const Json*> by_name_a;
  for (const auto& job : *jobs_a)
    by_name_a.emplace(text_member(job, "name"), &job);
  Json jobs = Json::array();
  std::map<std::string, bool> seen;
  for (const auto& job : *jobs_b) {
    const std::string name = text_member(job, "name");
    seen[name] = true;
    const auto other = by_name_a.find(name);
    if (other == by_name_a.end()) {
      Json only = job_header(job);
      only["verdict"] = "only-in-b";
      jobs.push_back(std::move(only));
    } else if (text_member(job, "status", "ok") != "ok" ||
               text_member(*other->second, "status", "ok") != "ok") {
      Json failed = job_header(job);
      failed["verdict"] = "insufficient-samples";
      failed["reason"] = "the job did not run on both sides (status " +
                         text_member(*other->second, "status", "ok") + " → " +
                         text_member(job, "status", "ok") + ")";
      jobs.push_back(std::move(failed));
    } else {
      jobs.push_back(compare_job(*other->second, job, alpha));
    }
  }
  for (const auto& job : *jobs_a) {
    if (seen.count(text_member(job, "name")) != 0) continue;
    Json only = job_header(job);
    only["verdict"] = "only-in-a";
    jobs.push_back(std::move(only));
  }
  return {{"alpha", alpha}, {"jobs", std::move(jobs)}};
}

}  // namespace kdrift
