#pragma once

#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

// The probe section as text: the capability matrix, then a row per job (mode x depth) with
// IOPS, bandwidth, latency percentiles, CPU, I/Os per submit call and what the device saw.
std::string render_probe_text(const Json& probe, bool colour);

}  // namespace kdrift
