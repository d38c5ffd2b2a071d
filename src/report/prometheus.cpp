#include "report/prometheus.h"

#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "model/job_result.h"
#include "model/percentile_set.h"
#include "model/verdict.h"
#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kReplacementCharacter = "\xef\xbf\xbd";
constexpr std::string_view kEllipsis = "\xe2\x80\xa6";

using Labels = std::vector<std::pair<std::string_view, std::string>>;

std::string number_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string labels_text(const Labels& labels) {
  if (labels.empty()) return {};
  std::string text = "{";
  for (const auto& [name, value] : labels) {
    if (text.size() > 1) text += ',';
    text += std::string(name) + "=\"" + prometheus_label_value(value) + "\"";
  }
  return text + "}";
}

// One metric family: HELP and TYPE once, then its samples in the order given. A label set given
// twice keeps its first value, since a snapshot can name a device twice and a series exposed
// twice is invalid.
class Family {
 public:
  Family(std::string_view name, std::string_view type, std::string_view help)
      : name_(name), type_(type), help_(help) {}

  // suffix: "_sum" or "_count" for a summary's totals. A value that is not finite (a setting
  // scaled past a double's range) is left out.
  void set(const Labels& labels, double value, std::string_view suffix = {}) {
    if (!std::isfinite(value)) return;
    if (double* slot = slot_for(labels, suffix); slot != nullptr && std::isnan(*slot)) {
      *slot = value;
    }
  }
  // A count per label set: increment(labels, 0) makes the series exist at 0.
  void increment(const Labels& labels, double by = 1) {
    if (double* slot = slot_for(labels, {}); slot != nullptr)
      *slot = std::isnan(*slot) ? by : *slot + by;
  }

  void render(std::string& out) const {
    if (samples_.empty()) return;
    out += "# HELP " + name_ + " " + help_ + "\n# TYPE " + name_ + " " + type_ + "\n";
    for (const auto& [series, value] : samples_)
      out += series + " " + number_text(value) + "\n";
    if (left_out_ > 0) {
      out += "# kdrift: " + std::to_string(left_out_) + " more series of " + name_ +
             " left out (at most " + std::to_string(kMaxSeriesPerFamily) + ")\n";
    }
  }

 private:
  // The sample's value (NaN until set), or null when the family is full.
  double* slot_for(const Labels& labels, std::string_view suffix) {
    std::string series = name_ + std::string(suffix) + labels_text(labels);
    if (const auto it = index_.find(series); it != index_.end())
      return &samples_[it->second].second;
    if (samples_.size() >= kMaxSeriesPerFamily) {
      ++left_out_;
      return nullptr;
    }
    index_.emplace(series, samples_.size());
    samples_.emplace_back(std::move(series), std::nan(""));
    return &samples_.back().second;
  }

  std::string name_;
  std::string type_;
  std::string help_;
  std::vector<std::pair<std::string, double>> samples_;
  std::map<std::string, size_t> index_;
  size_t left_out_ = 0;
};

// The families in the order they are written; a deque, so that a family stays where it is
// while later ones are added.
class Metrics {
 public:
  Family& add(std::string_view name, std::string_view type, std::string_view help) {
    return families_.emplace_back(name, type, help);
  }
  std::string render() const {
    std::string out;
    for (const Family& family : families_)
      family.render(out);
    return out;
  }

 private:
  std::deque<Family> families_;
};

const Json& object_or_empty(const Json* node) {
  static const Json kEmpty = Json::object();
  return node != nullptr && node->is_object() ? *node : kEmpty;
}

// Two digits at text[at], or absent.
std::optional<int> two_digits(std::string_view text, size_t at) {
  if (at + 2 > text.size() || !std::isdigit(static_cast<unsigned char>(text[at])) ||
      !std::isdigit(static_cast<unsigned char>(text[at + 1]))) {
    return std::nullopt;
  }
  return (text[at] - '0') * 10 + (text[at + 1] - '0');
}

// captured_at as capture writes it, "2026-11-30T15:18:25Z", in seconds since the epoch; any
// other text is absent.
std::optional<double> epoch_seconds(std::string_view text) {
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != 'Z') {
    return std::nullopt;
  }
  const auto century = two_digits(text, 0), year = two_digits(text, 2), month = two_digits(text, 5),
             day = two_digits(text, 8), hour = two_digits(text, 11), minute = two_digits(text, 14),
             second = two_digits(text, 17);
  if (!century || !year || !month || !day || !hour || !minute || !second || *hour > 23 ||
      *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year(*century * 100 + *year),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  return static_cast<double>(days) * 86400 + *hour * 3600 + *minute * 60 + *second;
}

void capture_metrics(const Json& snapshot, Metrics& metrics) {
  metrics
      .add("kdrift_info", "gauge",
           "The kdrift version that captured the snapshot and the kernel release it captured; "
           "always 1")
      .set({{"version", string_at(snapshot, {"capture", "version"}).value_or("")},
            {"kernel", string_at(snapshot, {"kernel", "release"}).value_or("")}},
           1);
  Family& timestamp = metrics.add("kdrift_capture_timestamp_seconds", "gauge",
                                  "When the snapshot was captured, in seconds since the epoch");
  if (const auto at = epoch_seconds(string_at(snapshot, {"capture", "captured_at"}).value_or(""))) {
    timestamp.set({}, *at);
  }
}

void iommu_metrics(const Json& snapshot, Metrics& metrics) {
  Family& mode = metrics.add("kdrift_iommu_device_mode", "gauge",
                             "The IOMMU mode a block device's DMA is in (translated-strict, "
                             "translated-lazy, passthrough, none, unknown); always 1");
  Family& translated = metrics.add("kdrift_iommu_translated", "gauge",
                                   "1 when a block device's DMA goes through IOMMU translation, "
                                   "0 when not; absent when its mode is unknown");
  for (const Json& device : array_at(snapshot, {"iommu", "devices"})) {
    const auto pci = string_at(device, {"pci"});
    if (!pci) continue;  // loop, zram, dm: no DMA of their own
    const std::string name = text_member(device, "device");
    const std::string mode_name = text_member(device, "mode", "unknown");
    mode.set({{"device", name}, {"pci", *pci}, {"mode", mode_name}}, 1);
    if (mode_name == "translated-strict" || mode_name == "translated-lazy") {
      translated.set({{"device", name}}, 1);
    } else if (mode_name == "passthrough" || mode_name == "none") {
      translated.set({{"device", name}}, 0);
    }
  }
}

void nvme_metrics(const Json& snapshot, Metrics& metrics) {
  Family& queues = metrics.add("kdrift_nvme_queues", "gauge",
                               "I/O queues of an NVMe controller by type (default, read, poll)");
  for (const auto& [name, controller] :
       object_or_empty(at(snapshot, {"nvme", "controllers"})).items()) {
    const std::string model = text_member(controller, "model");
    for (const char* type : {"default", "read", "poll"}) {
      if (const auto count = number_at(controller, {"queues", type})) {
        queues.set({{"controller", name}, {"model", model}, {"type", type}}, *count);
      }
    }
  }
  Family& parameter = metrics.add("kdrift_nvme_module_poll_queues", "gauge",
                                  "The nvme module's poll_queues parameter");
  if (const auto poll = number_at(snapshot, {"nvme", "parameters", "nvme", "poll_queues"})) {
    parameter.set({}, *poll);
  }
}

struct QueueSetting {
  std::string_view metric;
  std::string_view key;  // in the device's queue/
  double scale;          // to the metric's base unit
  std::string_view help;
};

constexpr QueueSetting kQueueSettings[] = {
    {"kdrift_block_queue_nr_requests", "nr_requests", 1, "A block device's queue/nr_requests"},
    {"kdrift_block_queue_read_ahead_bytes", "read_ahead_kb", 1024,
     "A block device's queue/read_ahead_kb, in bytes"},
    {"kdrift_block_queue_max_sectors_bytes", "max_sectors_kb", 1024,
     "A block device's queue/max_sectors_kb (the largest request), in bytes"},
    {"kdrift_block_queue_nomerges", "nomerges", 1,
     "A block device's queue/nomerges (0 merges, 1 simple merges only, 2 none)"},
    {"kdrift_block_queue_rq_affinity", "rq_affinity", 1, "A block device's queue/rq_affinity"},
    {"kdrift_block_queue_io_poll", "io_poll", 1,
     "A block device's queue/io_poll: 1 when polled I/O is possible"},
    {"kdrift_block_queue_wbt_latency_seconds", "wbt_lat_usec", 1e-6,
     "A block device's queue/wbt_lat_usec (write-back throttling target, 0 off), in seconds"},
    {"kdrift_block_queue_rotational", "rotational", 1, "A block device's queue/rotational"},
};

void block_metrics(const Json& snapshot, Metrics& metrics) {
  Family& scheduler = metrics.add("kdrift_block_scheduler", "gauge",
                                  "The I/O scheduler in force on a block device; always 1");
  std::vector<Family*> settings;
  for (const QueueSetting& setting : kQueueSettings) {
    settings.push_back(&metrics.add(setting.metric, "gauge", setting.help));
  }
  Family& write_back = metrics.add("kdrift_block_queue_write_back_cache", "gauge",
                                   "1 when a block device's queue/write_cache is write back, 0 "
                                   "when write through");
  for (const auto& [name, device] : object_or_empty(at(snapshot, {"block", "devices"})).items()) {
    if (number_at(device, {"size_bytes"}) == 0.0) continue;  // unattached loop devices and such
    if (const auto active = string_at(device, {"scheduler", "active"})) {
      scheduler.set({{"device", name}, {"scheduler", *active}}, 1);
    }
    for (size_t i = 0; i < std::size(kQueueSettings); ++i) {
      if (const auto value = number_at(device, {"queue", kQueueSettings[i].key})) {
        settings[i]->set({{"device", name}}, *value * kQueueSettings[i].scale);
      }
    }
    const auto cache = string_at(device, {"queue", "write_cache"});
    if (cache == "write back" || cache == "write through") {
      write_back.set({{"device", name}}, cache == "write back" ? 1 : 0);
    }
  }
}

void host_metrics(const Json& snapshot, Metrics& metrics) {
  Family& governor =
      metrics.add("kdrift_cpu_governor", "gauge", "cpufreq policies with this scaling governor");
  for (const Json& policy : array_at(snapshot, {"cpu", "cpufreq", "policies"})) {
    if (const auto name = string_at(policy, {"scaling_governor"})) {
      governor.increment({{"governor", *name}});
    }
  }
  Family& io_uring = metrics.add("kdrift_io_uring_disabled", "gauge",
                                 "The sysctl kernel.io_uring_disabled (0 enabled, 1 only for "
                                 "kernel.io_uring_group, 2 disabled)");
  if (const auto disabled = number_at(snapshot, {"sysctl", "kernel.io_uring_disabled"})) {
    io_uring.set({}, *disabled);
  }
}

void finding_metrics(const Json& report, Metrics& metrics) {
  Family& findings = metrics.add("kdrift_findings", "gauge",
                                 "Findings of the built-in (or --checks) rules by id and severity");
  Family& by_severity =
      metrics.add("kdrift_findings_by_severity", "gauge", "Findings of the rules at each severity");
  for (const char* severity : {"critical", "warning", "info"}) {
    by_severity.increment({{"severity", severity}}, 0);
  }
  for (const Json& finding : array_at(report, {"findings"})) {
    const std::string severity = text_member(finding, "severity");
    findings.increment({{"id", text_member(finding, "id")}, {"severity", severity}});
    by_severity.increment({{"severity", severity}});
  }
  // A zero finding count is no all-clear for a rule whose facts the snapshot does not know.
  Family& not_judged = metrics.add(
      "kdrift_rule_not_judged", "gauge",
      "Rules that could not judge, a fact they need being unknown in the snapshot; always 1");
  for (const Json& rule : array_at(report, {"not_judged"})) {
    not_judged.set({{"id", text_member(rule, "id")}}, 1);
  }
}

// With a baseline, each probe job's verdict against it (model/verdict.h), so that an alert can
// tell a regression from a run the data could not decide: the state as a label of a series that
// is always 1, the ratio and its interval, and for an undecided job the samples a side that would
// decide it.
void comparison_metrics(const Json& report, const std::string& profile, Metrics& metrics) {
  Family& verdicts = metrics.add(
      "kdrift_probe_verdict", "gauge",
      "Always 1: a probe job's verdict against the baseline (state changed, equivalent or "
      "inconclusive; change regression, improvement or none)");
  Family& ratio = metrics.add("kdrift_probe_ratio", "gauge",
                              "A probe job's IOPS against the baseline's (this over baseline)");
  Family& bounds = metrics.add(
      "kdrift_probe_ratio_bound", "gauge",
      "The interval the probe verdict was decided on (bound low or high), at its confidence");
  Family& deciding =
      metrics.add("kdrift_probe_samples_to_decide", "gauge",
                  "For an inconclusive probe job: the samples a side (unit) that would decide it");
  for (const Json& job : array_at(report, {"probe", "jobs"})) {
    const Verdict verdict = Verdict::from_json(job);
    if (!verdict.compared()) continue;
    const std::string name = text_member(job, "name");
    const Labels labels = {{"profile", profile}, {"probe_job", name}};
    const std::string change = change_name(verdict);
    verdicts.set({{"profile", profile},
                  {"probe_job", name},
                  {"state", state_name(verdict.state)},
                  {"change", change}},
                 1);
    if (const auto value = number_member(job, "iops_ratio")) ratio.set(labels, *value);
    if (verdict.bounds) {
      bounds.set({{"profile", profile}, {"probe_job", name}, {"bound", "low"}},
                 verdict.bounds->low);
      bounds.set({{"profile", profile}, {"probe_job", name}, {"bound", "high"}},
                 verdict.bounds->high);
    }
    if (verdict.decide && !verdict.decide->beyond_reach &&
        verdict.state == VerdictState::kInconclusive) {
      deciding.set(
          {{"profile", profile}, {"probe_job", name}, {"unit", unit_name(verdict.decide->unit)}},
          static_cast<double>(verdict.decide->needed));
    }
  }
}

// A tracked percentile as a quantile label: 99.9 -> "0.999" (rounded first, since 99.9 / 100
// is not the double nearest 0.999).
std::string quantile_text(double percentile) {
  return number_text(std::round(percentile * 1e4) / 1e6);
}

void direction_metrics(const DirectionResult& result, const Labels& labels, Family& iops,
                       Family& latency) {
  if (result.iops) iops.set(labels, *result.iops);
  if (!result.lat) return;
  for (const TrackedPercentile& percentile : kTrackedPercentiles) {
    if (const auto ns = result.lat->percentile(percentile.key)) {
      Labels quantile = labels;
      quantile.emplace_back("quantile", quantile_text(percentile.value));
      latency.set(quantile, static_cast<double>(*ns) / 1e9);
    }
  }
  if (result.lat->mean && result.ios) {
    latency.set(labels, *result.lat->mean * static_cast<double>(*result.ios) / 1e9, "_sum");
    latency.set(labels, static_cast<double>(*result.ios), "_count");
  }
}

// fio's layout has both directions, the one a job did not use with no I/O; an import from fio
// without total_ios still has its IOPS.
bool carried_io(const DirectionResult& result) {
  return result.ios ? *result.ios > 0 : result.iops.value_or(0) > 0;
}

void probe_metrics(const Json& snapshot, Metrics& metrics) {
  Family& timestamp = metrics.add("kdrift_probe_timestamp_seconds", "gauge",
                                  "When the snapshot holding the probe results was captured (the "
                                  "probe runs right after), in seconds since the epoch");
  Family& iops = metrics.add("kdrift_probe_iops", "gauge",
                             "I/O operations per second a probe job measured, per direction");
  Family& latency = metrics.add("kdrift_probe_latency_seconds", "summary",
                                "Total I/O latency of a probe job's measured window, per "
                                "direction: quantiles, sum and count of its I/Os");
  const std::string profile = string_at(snapshot, {"probe", "profile", "name"}).value_or("");
  bool measured = false;
  for (const Json& entry : array_at(snapshot, {"probe", "jobs"})) {
    const auto job = JobResult::from_json(entry);
    if (!job || job->status_or_ok() != "ok") continue;
    for (const auto& [direction, result] :
         {std::pair{"read", &job->read}, {"write", &job->write}}) {
      if (!*result || !carried_io(**result)) continue;
      direction_metrics(**result,
                        {{"profile", profile}, {"probe_job", job->name}, {"direction", direction}},
                        iops, latency);
      measured = true;
    }
  }
  const auto at = epoch_seconds(string_at(snapshot, {"capture", "captured_at"}).value_or(""));
  if (measured && at) timestamp.set({}, *at);
}

}  // namespace

std::string prometheus_label_value(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t length = utf8_text_length(text, i);
    const auto byte = static_cast<unsigned char>(text[i]);
    std::string_view piece = text.substr(i, length);
    if (length == 0 || (byte < 0x20 && byte != '\n') || byte == 0x7f) {
      piece = kReplacementCharacter;
    } else if (byte == '\\') {
      piece = "\\\\";
    } else if (byte == '"') {
      piece = "\\\"";
    } else if (byte == '\n') {
      piece = "\\n";
    }
    if (out.size() + piece.size() > kMaxLabelValueBytes) return out + std::string(kEllipsis);
    out += piece;
    i += length == 0 ? 1 : length;
  }
  return out;
}

std::string render_prometheus(const Json& snapshot, const Json* report) {
  Metrics metrics;
  capture_metrics(snapshot, metrics);
  iommu_metrics(snapshot, metrics);
  nvme_metrics(snapshot, metrics);
  block_metrics(snapshot, metrics);
  host_metrics(snapshot, metrics);
  if (report != nullptr) finding_metrics(*report, metrics);
  probe_metrics(snapshot, metrics);
  if (report != nullptr) {
    comparison_metrics(*report, string_at(snapshot, {"probe", "profile", "name"}).value_or(""),
                       metrics);
  }
  return metrics.render();
}

}  // namespace kdrift
