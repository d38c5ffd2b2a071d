#pragma once

#include <string>

#include "snapshot/snapshot.h"

namespace kdrift {

// A job's trace section as text: what the block layer did (bios, requests, merges, average
// request size), io_uring punts and IOMMU mappings per I/O, and the device latency as a
// biolatency-style power-of-two histogram in microseconds. Empty when the job has no trace.
std::string render_trace_text(const Json& job);

}  // namespace kdrift
