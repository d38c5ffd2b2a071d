#include "model/bisect_metric.h"

#include <charconv>

#include "model/percentile_set.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kDeclared = "declared";
constexpr std::string_view kFindingPrefix = "finding:";

}  // namespace

Result<ProbeMetric> parse_probe_metric(std::string_view text) {
  const std::string usage = "--metric " + std::string(text) +
                            ": expected probe:PROFILE:ENGINE:IODEPTH:STAT with STAT iops, p50, "
                            "p99 or p99.9 (probe:quick:io_uring:16:iops)";
  const auto parts = split(text, ':');
  if (parts.size() != 5 || parts[0] != "probe") return content_error(usage);
  ProbeMetric metric{parts[1], parts[2], 0, parts[4]};
  const std::string& depth = parts[3];
  const auto [end, error] =
      std::from_chars(depth.data(), depth.data() + depth.size(), metric.iodepth);
  if (metric.profile.empty() || metric.engine.empty() || error != std::errc() ||
      end != depth.data() + depth.size() || metric.iodepth < 1) {
    return content_error(usage);
  }
  // The figures a probe metric may name: IOPS, or a tracked latency percentile.
  if (metric.statistic != "iops" && kTrackedPercentiles.by_label(metric.statistic) == nullptr) {
    return content_error(usage);
  }
  return metric;
}

Result<BisectMetric> parse_bisect_metric(std::string_view text) {
  if (text == kDeclared) return BisectMetric{DeclaredMetric{}};
  if (starts_with(text, kFindingPrefix)) {
    return BisectMetric{FindingMetric{std::string(text.substr(kFindingPrefix.size()))}};
  }
  auto probe = parse_probe_metric(text);
  if (!probe) return probe.error();
  return BisectMetric{std::move(*probe)};
}

std::string to_string(const ProbeMetric& metric) {
  return "probe:" + metric.profile + ":" + metric.engine + ":" + std::to_string(metric.iodepth) +
         ":" + metric.statistic;
}

std::string to_string(const BisectMetric& metric) {
  struct Text {
    std::string operator()(const DeclaredMetric&) const { return std::string(kDeclared); }
    std::string operator()(const FindingMetric& finding) const {
      return std::string(kFindingPrefix) + finding.rule_id;
    }
    std::string operator()(const ProbeMetric& probe) const { return to_string(probe); }
  };
  return std::visit(Text{}, metric);
}

}  // namespace kdrift
