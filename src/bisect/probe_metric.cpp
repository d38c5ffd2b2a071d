#include "bisect/probe_metric.h"

#include "model/job_result.h"
#include "model/percentile_set.h"

namespace kdrift {
namespace {

// The direction of the job's I/O that the metric reads: writes for write-only workloads (a mixed
// one reads its read side, as the metric always has).
const DirectionResult* io_side(const JobResult& result) {
  const bool writes_only = result.job && result.job->writes() && !result.job->reads();
  return writes_only ? (result.write ? &*result.write : nullptr)
                     : (result.read ? &*result.read : nullptr);
}

}  // namespace

Result<double> metric_value(const ProbeMetric& metric, const Json& probe) {
  const Json* jobs = array_member(probe, "jobs");
  for (const Json& entry : jobs != nullptr ? *jobs : Json::array()) {
    const JobResult result = JobResult::from_json(entry).value_or(JobResult{});
    if (!result.job || result.job->engine.label() != metric.engine ||
        result.job->effective_iodepth() != static_cast<uint32_t>(metric.iodepth)) {
      continue;
    }
    const std::string job = "job \"" + result.name + "\"";
    if (result.status != "ok") {
      return content_error(job + " did not run: " + result.status.value_or(""));
    }
    const DirectionResult* side = io_side(result);
    if (metric.statistic == "iops") {
      if (side != nullptr && side->iops_per_second && side->iops_per_second->median) {
        return *side->iops_per_second->median;
      }
      // A run shorter than a second has no per-second samples: its whole-run rate stands in.
      if (side != nullptr && side->iops) return *side->iops;
    } else if (const auto* percentile = kTrackedPercentiles.by_label(metric.statistic);
               side != nullptr && side->lat && percentile != nullptr) {
      if (const auto value = side->lat->percentile(percentile->key)) {
        return static_cast<double>(*value);
      }
    }
    return content_error(job + " has no " + metric.statistic);
  }
  return content_error("the probe ran no " + metric.engine + " job at iodepth " +
                       std::to_string(metric.iodepth) + " (profile " + metric.profile + ")");
}

}  // namespace kdrift
