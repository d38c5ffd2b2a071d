#pragma once
// The probe section shaped like fio's --output-format=json, so tools that read fio results
// (fio_jsonplus_clat2csv, dashboards, the seeds' scripts) read kdrift's.

#include "snapshot/snapshot.h"

namespace kdrift {

Json render_fio_json(const Json& probe, const std::string& tool_version);

}  // namespace kdrift
