#pragma once
// A snapshot as node_exporter textfile collector metrics (docs/prometheus.md): the facts alerts
// are written over (IOMMU mode per device, NVMe queues, block queues, governor, io_uring, the
// probe's IOPS and latency) and, given the report document check_report made of the snapshot,
// its findings. Metric and label names are a contract, as finding ids are.
//
// Snapshots come from elsewhere: whatever a value holds, the output is valid exposition text in
// valid UTF-8, because node_exporter drops the whole file (every kdrift metric of the host) over
// one bad line or one series given twice.

#include <cstddef>
#include <string>
#include <string_view>

#include "snapshot/snapshot.h"

namespace kdrift {

// A label value longer than this (in bytes, after escaping) is cut at a character boundary and
// ends in "…": a model name or job name is far shorter, and a huge one must not bloat every
// sample and series Prometheus stores.
inline constexpr size_t kMaxLabelValueBytes = 128;
// Series one family may hold: a real host has a few dozen block devices; a hostile snapshot with
// a million must not become a million series. What is left out is said in a comment line.
inline constexpr size_t kMaxSeriesPerFamily = 1024;

// report: the kdrift.report/1 document of the snapshot checked alone, or against a baseline
// (check --baseline: then its probe jobs' verdicts too, kdrift_probe_verdict and its kin), or
// null for no findings metrics (then the kdrift_findings families are absent rather than zero).
std::string render_prometheus(const Json& snapshot, const Json* report);

// text as a label value between double quotes: backslash, double quote and newline escaped as
// the exposition format wants, other control characters and bytes that are not UTF-8 as U+FFFD,
// cut to kMaxLabelValueBytes.
std::string prometheus_label_value(std::string_view text);

}  // namespace kdrift
