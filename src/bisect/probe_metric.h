#pragma once
// A performance bisect's figure, read from what a probe wrote: on this host by `step`, or in the
// snapshots a boot command brought back from the machine it booted.

#include <string>
#include <vector>

#include "model/bisect_metric.h"
#include "snapshot/json_access.h"
#include "util/result.h"

namespace kdrift {

// The figure from one probe section: the first job on that engine and queue depth.
Result<double> metric_value(const ProbeMetric& metric, const Json& probe);

}  // namespace kdrift
