#pragma once
// What `kdrift bisect step` measures on the boot it runs on: a probe figure taken several times
// (a performance bisect), or whether a finding shows and how (a functional bisect).

#include <string>
#include <string_view>
#include <vector>

#include "bisect/session.h"
#include "model/bisect_metric.h"
#include "rules/rule.h"
#include "util/result.h"
#include "util/sysroot.h"
#include "util/trusted_dir.h"

namespace kdrift {

// Runs the probe `runs` times on target; one value per run.
std::vector<double> measure_probe_metric(const ProbeMetric& metric, const std::string& target,
                                         int runs);

// The functional bisect's verdict on the running boot: capture it (and run the profile first
// when the start named one), save the snapshot as snapshot_name in folder (the state directory's)
// and compare the finding with what the endpoints showed. Returns the verdict event (without
// boot id / attempt).
Json judge_by_finding(const Session& session, std::size_t candidate, const std::vector<Rule>& rules,
                      const SysRoot& root, const TrustedDir& folder,
                      const std::string& snapshot_name);

}  // namespace kdrift
