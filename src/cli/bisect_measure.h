#pragma once
// What `kdrift bisect step` measures on the boot it runs on: a probe figure taken several times
// (a performance bisect), or whether a finding shows and how (a functional bisect).

#include <string>
#include <string_view>
#include <vector>

#include "bisect/session.h"
#include "checks/rule.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

// --metric probe:PROFILE:MODE:IODEPTH:STAT, STAT one of iops (the job's median per-second IOPS),
// p50, p99, p99.9 (the whole run's total latency percentile, ns).
struct ProbeMetric {
  std::string profile;
  std::string engine;  // io_uring, io_uring+iopoll, libaio, ...
  int iodepth = 0;
  std::string statistic;
};

Result<ProbeMetric> parse_probe_metric(std::string_view text);

// The figure from one probe section: the first job on that engine and queue depth.
Result<double> metric_value(const ProbeMetric& metric, const Json& probe);

// Runs the probe `runs` times on target; one value per run.
std::vector<double> measure_probe_metric(const ProbeMetric& metric, const std::string& target,
                                         int runs);

// The functional bisect's verdict on the running boot: capture it (and run the profile first
// when the start named one), save the snapshot in the state directory and compare the finding
// with what the endpoints showed. Returns the verdict event (without boot id / attempt).
Json judge_by_finding(const Session& session, std::size_t candidate, const std::vector<Rule>& rules,
                      const SysRoot& root, const std::string& snapshot_path);

}  // namespace kdrift
