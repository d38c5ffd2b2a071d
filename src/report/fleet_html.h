#pragma once
// The fleet document as one self-contained HTML page: the fleet table with the outliers first
// (their deviations and findings), the comparison of two groups, and a chart of each probe job's
// median IOPS per fingerprint group.

#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

std::string render_fleet_html(const Json& fleet);

}  // namespace kdrift
