#include "report/prometheus.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "rules/analysis.h"
#include "rules/rule_loader.h"
#include "support/hostile_text.h"
#include "support/snapshots.h"
#include "util/text.h"

namespace kdrift {
namespace {

// One sample line read back as the exposition format defines it: name, labels with their
// escapes undone, value.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

bool metric_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The label set at line[at] (just past '{'), or an error message.
std::string parse_labels(const std::string& line, size_t& at, Sample& sample) {
  while (at < line.size() && line[at] != '}') {
    const size_t name_end = line.find("=\"", at);
    if (name_end == std::string::npos) return "no =\" after a label name";
    const std::string name = line.substr(at, name_end - at);
    for (const char c : name) {
      if (!metric_name_char(c)) return "bad label name " + name;
    }
    std::string value;
    for (at = name_end + 2; at < line.size() && line[at] != '"'; ++at) {
      if (line[at] != '\\') {
        value += line[at];
        continue;
      }
      const char escaped = ++at < line.size() ? line[at] : '\0';
      if (escaped != '\\' && escaped != '"' && escaped != 'n') return "bad escape in " + name;
      value += escaped == 'n' ? '\n' : escaped;
    }
    if (at >= line.size()) return "unterminated value of " + name;
    if (!sample.labels.emplace(name, value).second) return "label " + name + " twice";
    ++at;
    if (at < line.size() && line[at] == ',') ++at;
  }
  if (at >= line.size()) return "no }";
  ++at;
  return {};
}

std::string parse_sample(const std::string& line, Sample& sample) {
  size_t at = 0;
  while (at < line.size() && metric_name_char(line[at]))
    ++at;
  sample.name = line.substr(0, at);
  if (!sample.name.starts_with("kdrift_")) return "not a kdrift_ metric";
  if (at < line.size() && line[at] == '{') {
    ++at;
    if (auto error = parse_labels(line, at, sample); !error.empty()) return error;
  }
  if (at >= line.size() || line[at] != ' ') return "no space before the value";
  const std::string value = line.substr(at + 1);
  char* end = nullptr;
  sample.value = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0') return "bad value " + value;
  return {};
}

bool valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\n') {
      ++i;
      continue;
    }
    const size_t length = utf8_text_length(text, i);
    if (length == 0 || static_cast<unsigned char>(text[i]) < 0x20) return false;
    i += length;
  }
  return true;
}

// Every line is HELP, TYPE, a kdrift comment or a sample of the family declared last; no series
// is given twice; the text is UTF-8 with no control character but the line ends. Returns the
// samples; a breach fails the test.
std::vector<Sample> parse_exposition(const std::string& text) {
  EXPECT_TRUE(valid_utf8(text));
  EXPECT_TRUE(text.empty() || text.back() == '\n');
  std::vector<Sample> samples;
  std::set<std::string> families;
  std::set<std::string> series;
  std::string family;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# HELP ")) {
      family = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(families.insert(family).second) << "family twice: " << family;
      continue;
    }
    if (line.starts_with("# TYPE " + family + " ")) {
      const std::string type = line.substr(8 + family.size());
      EXPECT_TRUE(type == "gauge" || type == "summary") << line;
      continue;
    }
    if (line.starts_with("# kdrift: ")) continue;
    Sample sample;
    const std::string error = parse_sample(line, sample);
    EXPECT_EQ(error, "") << line;
    EXPECT_TRUE(sample.name == family || sample.name == family + "_sum" ||
                sample.name == family + "_count")
        << line << " after HELP of " << family;
    EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "series twice: " << line;
    samples.push_back(std::move(sample));
  }
  return samples;
}

std::vector<Sample> of(const std::vector<Sample>& samples, std::string_view name) {
  std::vector<Sample> found;
  for (const Sample& sample : samples) {
    if (sample.name == name) found.push_back(sample);
  }
  return found;
}

std::string metrics_with_findings(const Json& snapshot) {
  auto rules = builtin_rules();
  EXPECT_TRUE(rules);
  const Json report = check_report({snapshot, "snapshot"}, *rules);
  return render_prometheus(snapshot, &report);
}

TEST(Prometheus, TranslatedIommuAndItsFindingFromARealSnapshot) {
  const auto samples =
      parse_exposition(metrics_with_findings(testing::fixture_snapshot("snapshot:intel-strict")));
  const auto mode = of(samples, "kdrift_iommu_device_mode");
  ASSERT_EQ(mode.size(), 1u);
  EXPECT_EQ(mode[0].labels.at("device"), "nvme0n1");
  EXPECT_EQ(mode[0].labels.at("pci"), "0000:01:00.0");
  EXPECT_EQ(mode[0].labels.at("mode"), "translated-strict");
  const auto translated = of(samples, "kdrift_iommu_translated");
  ASSERT_EQ(translated.size(), 1u);
  EXPECT_EQ(translated[0].value, 1);
  bool critical = false;
  for (const Sample& finding : of(samples, "kdrift_findings")) {
    critical |= finding.labels.at("id") == "iommu.dma-translation" &&
                finding.labels.at("severity") == "critical" && finding.value == 1;
  }
  EXPECT_TRUE(critical);
  const auto by_severity = of(samples, "kdrift_findings_by_severity");
  ASSERT_EQ(by_severity.size(), 3u);
  EXPECT_EQ(by_severity[0].labels.at("severity"), "critical");
  EXPECT_EQ(by_severity[0].value, 1);
  const auto captured = of(samples, "kdrift_capture_timestamp_seconds");
  ASSERT_EQ(captured.size(), 1u);
  EXPECT_EQ(captured[0].value, 1796051905);  // 2026-11-30T15:18:25Z
  const auto info = of(samples, "kdrift_info");
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].labels.at("kernel"), "6.1.0-50-amd64");
}

// A snapshot without the IOMMU groups (a sos report): the mode is unknown, so no
// kdrift_iommu_translated sample at all (never 0), and the rules that needed it say so.
TEST(Prometheus, AnUnknownIommuModeIsNoSampleAndItsRulesAreNotJudged) {
  Json snapshot = testing::fixture_snapshot("snapshot:intel-strict");
  for (auto& device : snapshot["iommu"]["devices"]) {
    if (!device.contains("pci")) continue;
    device.erase("mode");
    device["unavailable"]["mode"] = "the IOMMU groups were not captured";
  }
  const auto samples = parse_exposition(metrics_with_findings(snapshot));
  EXPECT_TRUE(of(samples, "kdrift_iommu_translated").empty());
  bool not_judged = false;
  for (const Sample& rule : of(samples, "kdrift_rule_not_judged")) {
    not_judged |= rule.labels.at("id") == "iommu.dma-translation" && rule.value == 1;
  }
  EXPECT_TRUE(not_judged);
}

TEST(Prometheus, PassthroughIsNotTranslated) {
  const auto samples =
      parse_exposition(render_prometheus(testing::fixture_snapshot("snapshot:intel-pt"), nullptr));
  const auto translated = of(samples, "kdrift_iommu_translated");
  ASSERT_EQ(translated.size(), 1u);
  EXPECT_EQ(translated[0].value, 0);
  // No report, no findings families: absent, not a misleading zero.
  EXPECT_TRUE(of(samples, "kdrift_findings_by_severity").empty());
}

TEST(Prometheus, NvmeQueuesPerControllerAndThePollQueuesParameter) {
  const auto samples = parse_exposition(
      render_prometheus(testing::fixture_snapshot("snapshot:poll-queues-2"), nullptr));
  std::map<std::string, double> queues;
  for (const Sample& sample : of(samples, "kdrift_nvme_queues")) {
    EXPECT_EQ(sample.labels.at("controller"), "nvme0");
    queues[sample.labels.at("type")] = sample.value;
  }
  EXPECT_EQ(queues, (std::map<std::string, double>{{"default", 2}, {"poll", 2}, {"read", 0}}));
  const auto parameter = of(samples, "kdrift_nvme_module_poll_queues");
  ASSERT_EQ(parameter.size(), 1u);
  EXPECT_EQ(parameter[0].value, 2);
}

TEST(Prometheus, BlockSchedulerAndQueueSettingsInBaseUnits) {
  const auto samples = parse_exposition(
      render_prometheus(testing::fixture_snapshot("snapshot:intel-strict"), nullptr));
  const auto scheduler = of(samples, "kdrift_block_scheduler");
  ASSERT_EQ(scheduler.size(), 1u);
  EXPECT_EQ(scheduler[0].labels.at("scheduler"), "none");
  EXPECT_EQ(of(samples, "kdrift_block_queue_read_ahead_bytes").at(0).value, 128 * 1024);
  EXPECT_EQ(of(samples, "kdrift_block_queue_wbt_latency_seconds").at(0).value, 0.002);
  EXPECT_EQ(of(samples, "kdrift_block_queue_nr_requests").at(0).value, 1023);
}

TEST(Prometheus, ProbeIopsAndLatencyQuantilesPerJob) {
  const auto samples = parse_exposition(
      render_prometheus(testing::fixture_snapshot("snapshot:intel-strict"), nullptr));
  const auto iops = of(samples, "kdrift_probe_iops");
  ASSERT_EQ(iops.size(), 6u);
  EXPECT_EQ(iops[0].labels.at("probe_job"), "io_uring randread 4k qd1");
  EXPECT_EQ(iops[0].labels.at("direction"), "read");
  EXPECT_EQ(iops[0].labels.at("profile"), "lab");
  EXPECT_NEAR(iops[0].value, 2497.33, 0.01);
  std::set<std::string> quantiles;
  for (const Sample& sample : of(samples, "kdrift_probe_latency_seconds")) {
    if (sample.labels.at("probe_job") == "io_uring randread 4k qd1") {
      quantiles.insert(sample.labels.at("quantile"));
      if (sample.labels.at("quantile") == "0.99") {
        EXPECT_EQ(sample.value, 1013759e-9);
      }
    }
  }
  EXPECT_EQ(quantiles, (std::set<std::string>{"0.5", "0.99", "0.999"}));
  EXPECT_EQ(of(samples, "kdrift_probe_latency_seconds_count").at(0).value, 14984);
  EXPECT_EQ(of(samples, "kdrift_probe_timestamp_seconds").at(0).value, 1796051905);
}

TEST(Prometheus, AgainstABaselineEachJobCarriesItsThreeWayVerdict) {
  const Json& before = testing::fixture_snapshot("snapshot:no-iommu");
  const Json& after = testing::fixture_snapshot("snapshot:intel-strict");
  const auto rules = builtin_rules();
  ASSERT_TRUE(rules) << rules.error().describe();
  const Report report = diff_report_sets({{before, "before"}}, {{after, "after"}}, *rules);
  const auto samples = parse_exposition(render_prometheus(after, &report.document));
  const auto verdicts = of(samples, "kdrift_probe_verdict");
  ASSERT_EQ(verdicts.size(), report.document["probe"]["jobs"].size());
  for (const Sample& sample : verdicts) {
    EXPECT_EQ(sample.value, 1);
    const Json* job = nullptr;
    for (const Json& entry : report.document["probe"]["jobs"]) {
      if (entry["name"] == sample.labels.at("probe_job")) job = &entry;
    }
    ASSERT_NE(job, nullptr) << sample.labels.at("probe_job");
    // The series says what the report says: the same state, the same direction of change.
    EXPECT_EQ(sample.labels.at("state"), (*job)["state"]);
    const std::string token = (*job)["verdict"];
    EXPECT_EQ(sample.labels.at("change"),
              token == "regression" || token == "improvement" ? token : "none");
  }
  // Undecided jobs say what would decide them; decided ones do not.
  std::size_t undecided = 0;
  for (const Json& entry : report.document["probe"]["jobs"]) {
    if (entry["state"] == "inconclusive" && entry.contains("decide") &&
        entry["decide"].contains("needed")) {
      ++undecided;
    }
  }
  EXPECT_EQ(of(samples, "kdrift_probe_samples_to_decide").size(), undecided);
  EXPECT_EQ(of(samples, "kdrift_probe_ratio_bound").size(), 2 * verdicts.size());
  // Checked alone there is nothing to compare: no verdict series at all, never a zero.
  const Json alone = check_report({after, "after"}, *rules);
  EXPECT_TRUE(
      of(parse_exposition(render_prometheus(after, &alone)), "kdrift_probe_verdict").empty());
}

TEST(Prometheus, FailedAndMalformedJobsAreLeftOut) {
  Json snapshot = {
      {"capture", {{"captured_at", "2026-11-30T15:18:25Z"}}},
      {"probe",
       {{"jobs",
         {{{"name", "ok job"}, {"read", {{"ios", 10}, {"iops", 5.0}}}, {"write", {{"ios", 0}}}},
          {{"name", "imported without ios"}, {"write", {{"iops", 7.5}}}},
          {{"name", "failed job"}, {"status", "failed"}, {"read", {{"ios", 10}, {"iops", 5.0}}}},
          "not an object",
          {{"name", "typed wrong"}, {"read", {{"ios", "ten"}, {"iops", "5"}}}}}}}}};
  const auto samples = parse_exposition(render_prometheus(snapshot, nullptr));
  const auto iops = of(samples, "kdrift_probe_iops");
  ASSERT_EQ(iops.size(), 2u);
  EXPECT_EQ(iops[0].labels.at("probe_job"), "ok job");
  EXPECT_EQ(iops[0].labels.at("direction"), "read");
  EXPECT_EQ(iops[1].labels.at("probe_job"), "imported without ios");
  EXPECT_EQ(iops[1].labels.at("direction"), "write");
}

TEST(Prometheus, NoProbeNoProbeTimestamp) {
  const auto samples = parse_exposition(render_prometheus(
      {{"capture", {{"captured_at", "2026-11-30T15:18:25Z"}}}, {"kernel", {{"release", "6.1"}}}},
      nullptr));
  EXPECT_TRUE(of(samples, "kdrift_probe_timestamp_seconds").empty());
  EXPECT_EQ(of(samples, "kdrift_capture_timestamp_seconds").size(), 1u);
}

TEST(Prometheus, GovernorCountsPoliciesAndIoUringDisabledIsTheSysctl) {
  const Json snapshot = {{"cpu",
                          {{"cpufreq",
                            {{"policies",
                              {{{"policy", 0}, {"scaling_governor", "powersave"}},
                               {{"policy", 1}, {"scaling_governor", "powersave"}},
                               {{"policy", 2}, {"scaling_governor", "performance"}},
                               {{"policy", 3}, {"scaling_governor", 7}}}}}}}},
                         {"sysctl", {{"kernel.io_uring_disabled", 2}}}};
  const auto samples = parse_exposition(render_prometheus(snapshot, nullptr));
  std::map<std::string, double> governors;
  for (const Sample& sample : of(samples, "kdrift_cpu_governor")) {
    governors[sample.labels.at("governor")] = sample.value;
  }
  EXPECT_EQ(governors, (std::map<std::string, double>{{"performance", 1}, {"powersave", 2}}));
  EXPECT_EQ(of(samples, "kdrift_io_uring_disabled").at(0).value, 2);
}

TEST(Prometheus, CaptureTimeOtherThanCapturesFormatIsAbsent) {
  for (const char* text : {"2026-02-30T00:00:00Z", "2026-11-30 15:18:25Z", "2026-11-30T25:00:00Z",
                           "+026-11-30T15:18:25Z", "2026-11-30T15:18:25", ""}) {
    const auto samples =
        parse_exposition(render_prometheus({{"capture", {{"captured_at", text}}}}, nullptr));
    EXPECT_TRUE(of(samples, "kdrift_capture_timestamp_seconds").empty()) << text;
  }
}

TEST(Prometheus, LabelValuesAreEscapedAndMadeValidUtf8) {
  EXPECT_EQ(prometheus_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus_label_value("x\xffy"), "x\xef\xbf\xbdy");
  EXPECT_EQ(prometheus_label_value("\x1b[2J\r\t"), "\xef\xbf\xbd[2J\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(prometheus_label_value("\xc2\x9b"), "\xef\xbf\xbd\xef\xbf\xbd");  // C1 control
  EXPECT_EQ(prometheus_label_value("Micron 7450 é"), "Micron 7450 é");
}

TEST(Prometheus, LongLabelValuesAreCutAtACharacterBoundary) {
  std::string long_value;
  for (int i = 0; i < 500; ++i)
    long_value += "é";
  const std::string cut = prometheus_label_value(long_value);
  EXPECT_LE(cut.size(), kMaxLabelValueBytes + 3);
  EXPECT_TRUE(cut.ends_with("…"));
  EXPECT_TRUE(valid_utf8(cut));
  // An escape is never split.
  std::string escaped_quotes;
  for (size_t i = 0; i < kMaxLabelValueBytes / 2; ++i)
    escaped_quotes += "\\\"";
  EXPECT_EQ(prometheus_label_value(std::string(500, '"')), escaped_quotes + "…");
}

Json hostile_snapshot() {
  using testing::hostile_value;
  Json snapshot = testing::fixture_snapshot("snapshot:intel-strict");
  const std::string bad = hostile_value("x") + "\xff\xfe\"\\\n" + std::string(300, 'A');
  snapshot["kernel"]["release"] = bad;
  snapshot["capture"]["version"] = bad;
  snapshot["iommu"]["devices"].push_back({{"device", bad}, {"pci", bad}, {"mode", bad}});
  // The same device twice: one series, the first value.
  snapshot["iommu"]["devices"].push_back(
      {{"device", "nvme0n1"}, {"pci", "0000:01:00.0"}, {"mode", "translated-strict"}});
  snapshot["iommu"]["devices"].push_back({{"device", 5}, {"pci", Json::array()}});
  snapshot["nvme"]["controllers"][bad] = {{"model", bad}, {"queues", {{"poll", "2"}}}};
  snapshot["nvme"]["controllers"]["nvme9"] = "not an object";
  snapshot["block"]["devices"][bad] = {
      {"scheduler", {{"active", bad}}},
      {"queue", {{"nr_requests", 1e308}, {"read_ahead_kb", 1e308}}}};
  snapshot["cpu"]["cpufreq"]["policies"] = {{{"scaling_governor", bad}}, 3};
  snapshot["sysctl"]["kernel.io_uring_disabled"] = bad;
  snapshot["probe"]["profile"]["name"] = bad;
  Json job = snapshot["probe"]["jobs"][0];
  job["name"] = bad;
  snapshot["probe"]["jobs"].push_back(job);
  return snapshot;
}

TEST(Prometheus, HostileSnapshotsGiveValidExposition) {
  const Json snapshot = hostile_snapshot();
  Json report = {{"findings",
                  {{{"id", testing::hostile_value("id")}, {"severity", "critical"}},
                   {{"id", "iommu.strict"}, {"severity", "warning"}},
                   {{"id", "iommu.strict"}, {"severity", "warning"}},
                   {{"id", 7}},
                   "junk"}}};
  const std::string text = render_prometheus(snapshot, &report);
  EXPECT_EQ(text.find(" inf"), std::string::npos);  // 1e308 KiB is not a number of bytes
  const auto samples = parse_exposition(text);
  for (const Sample& sample : samples) {
    for (const auto& [name, value] : sample.labels) {
      EXPECT_TRUE(testing::control_bytes(value).empty()) << name << "=" << value;
    }
  }
  // The duplicate device kept its first entry.
  size_t nvme0n1 = 0;
  for (const Sample& sample : of(samples, "kdrift_iommu_translated")) {
    nvme0n1 += sample.labels.at("device") == "nvme0n1";
  }
  EXPECT_EQ(nvme0n1, 1u);
  for (const Sample& finding : of(samples, "kdrift_findings")) {
    if (finding.labels.at("id") == "iommu.strict") {
      EXPECT_EQ(finding.value, 2);
    }
  }
  EXPECT_EQ(of(samples, "kdrift_findings_by_severity").size(), 3u + 1u);  // and severity ""
  EXPECT_TRUE(of(samples, "kdrift_io_uring_disabled").empty());
}

TEST(Prometheus, WrongTypesEverywhereReadAsAbsent) {
  for (const Json& snapshot :
       {Json(), Json::array(), Json("text"), Json({{"iommu", 1}, {"nvme", "x"}, {"block", {1, 2}}}),
        Json({{"probe", {{"jobs", {{"x", 1}}}}}, {"capture", {{"captured_at", 5}}}})}) {
    const std::string text = render_prometheus(snapshot, &snapshot);
    parse_exposition(text);
  }
}

TEST(Prometheus, ManyDevicesAreCappedPerFamily) {
  Json snapshot = {{"block", {{"devices", Json::object()}}}};
  for (size_t i = 0; i < kMaxSeriesPerFamily + 10; ++i) {
    snapshot["block"]["devices"]["sd" + std::to_string(i)] = {{"scheduler", {{"active", "none"}}}};
  }
  const std::string text = render_prometheus(snapshot, nullptr);
  EXPECT_EQ(of(parse_exposition(text), "kdrift_block_scheduler").size(), kMaxSeriesPerFamily);
  EXPECT_NE(text.find("# kdrift: 10 more series of kdrift_block_scheduler left out"),
            std::string::npos);
}

TEST(Prometheus, HelpTextsNeedNoEscape) {
  const std::string text =
      metrics_with_findings(testing::fixture_snapshot("snapshot:intel-strict"));
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# HELP ")) {
      EXPECT_EQ(line.find('\\'), std::string::npos) << line;
    }
  }
}

}  // namespace
}  // namespace kdrift
