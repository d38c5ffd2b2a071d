#pragma once
// What a bisect judges candidates by, as the modules exchange it: verdicts said by the user or a
// command, a finding present or absent (a functional bisect), or a probe figure (a performance
// bisect). The journal's start event and state.json hold it as text ("declared", "finding:ID",
// "probe:PROFILE:ENGINE:IODEPTH:STAT"); parse and to_string are that text's one definition.

#include <string>
#include <string_view>
#include <variant>

#include "util/result.h"

namespace kdrift {

// Verdicts come from `kdrift bisect good|bad|skip` or from `bisect run`'s command.
struct DeclaredMetric {
  bool operator==(const DeclaredMetric&) const = default;
};

// Bad is the bad endpoint's way of showing this finding (`--predicate ID`).
struct FindingMetric {
  std::string rule_id;
  bool operator==(const FindingMetric&) const = default;
};

// --metric probe:PROFILE:ENGINE:IODEPTH:STAT, STAT one of iops (the job's median per-second
// IOPS), p50, p99, p99.9 (the whole run's total latency percentile, ns).
struct ProbeMetric {
  std::string profile;
  std::string engine;  // io_uring, io_uring+iopoll, libaio, ...
  int iodepth = 0;
  std::string statistic;
  bool operator==(const ProbeMetric&) const = default;
};

using BisectMetric = std::variant<DeclaredMetric, FindingMetric, ProbeMetric>;

// The probe metric in --metric's syntax; the error shows the syntax with an example.
Result<ProbeMetric> parse_probe_metric(std::string_view text);
// Any metric as the journal records it. A finding's id is not checked against the rules here.
Result<BisectMetric> parse_bisect_metric(std::string_view text);

std::string to_string(const ProbeMetric& metric);
std::string to_string(const BisectMetric& metric);

}  // namespace kdrift
