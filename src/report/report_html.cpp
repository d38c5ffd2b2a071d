#include "report/report_html.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "model/job_result.h"
#include "model/percentile_set.h"
#include "report/svg_chart.h"
#include "report/text_table.h"
#include "report/verdict_text.h"
#include "snapshot/json_access.h"
#include "util/units.h"

namespace kdrift {
namespace {

constexpr std::string_view kStyle = R"(
* { box-sizing: border-box; }
body { margin: 0; background: #eef1f4; color: #1d2430;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
main { max-width: 1380px; margin: 0 auto; padding: 24px 32px 40px; background: #ffffff; }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 17px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #e4e8ee; }
h3 { font-size: 14px; margin: 22px 0 8px; }
p { margin: 6px 0; }
.muted { color: #5b6573; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 12.5px; }
code { background: #f1f3f6; border-radius: 3px; padding: 0 4px; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid #e4e8ee; }
th { background: #f1f3f6; font-size: 12.5px; font-weight: 600; color: #3b4452; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.sides { width: auto; margin-top: 12px; }
table.sides th:first-child { background: none; }
td.mono { overflow-wrap: anywhere; }
td.absent { color: #8d97a3; font-style: italic; }
table.jobs { width: auto; }
table.jobs td, table.jobs th { padding: 6px 14px; vertical-align: middle; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 10px; font-size: 12px;
  font-weight: 600; white-space: nowrap; }
.sev-critical { background: #c53030; color: #ffffff; }
.sev-warning { background: #d69e2e; color: #1d2430; }
.sev-info { background: #52606d; color: #ffffff; }
.sev-other, .zero { background: #ffffff; color: #5b6573; border: 1px solid #c9d0d8; }
.status { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 14px; }
.exit { background: #1d2430; color: #ffffff; }
table.findings { table-layout: fixed; }
table.findings td.rank { font-size: 16px; font-weight: 700; text-align: center; }
.finding-title { font-weight: 600; }
.explanation { color: #3b4452; margin-top: 6px; }
.dir-regressed { color: #a32020; font-weight: 600; }
.dir-improved { color: #25733a; font-weight: 600; }
.dir-changed { color: #8a5a00; font-weight: 600; }
ul.lines { list-style: none; margin: 0; padding: 0; }
ul.lines li { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 12px; padding: 1px 0 1px 8px; border-left: 3px solid #d5dbe2; margin: 2px 0;
  overflow-wrap: anywhere; }
ul.proof li { border-left-color: #6b5ca5; }
.label { font-size: 11px; text-transform: uppercase; letter-spacing: 0.05em; color: #5b6573;
  margin: 6px 0 2px; }
.subjects code { display: inline-block; margin: 0 2px 2px 0; font-size: 11.5px; }
col.rank { width: 3.5%; }
col.severity, col.direction { width: 7.5%; }
col.finding { width: 22.5%; }
col.subjects { width: 15.5%; }
col.evidence { width: 28%; }
col.remedy { width: 15.5%; }
table.pairs { table-layout: fixed; }
col.key { width: 50%; }
.charts { display: flex; flex-wrap: wrap; gap: 14px; }
figure { margin: 0; border: 1px solid #e4e8ee; border-radius: 4px; }
svg.chart { display: block; max-width: 100%; height: auto; }
.v-regression { background: #fde2e1; color: #9b1c1c; }
.v-improvement { background: #dcf5e3; color: #1f6f3a; }
.v-neutral { background: #eef1f4; color: #3b4452; }
.v-inconclusive { background: #fff4d6; color: #7a5200; }
footer { margin-top: 36px; font-size: 12px; color: #5b6573; }
)";

// Hue tells A from B; within a chart, lighter to darker follows the percentile or the queue depth.
// A is drawn solid and B dashed, so the sides stay apart without colour.
constexpr std::array<const char*, 3> kColoursA = {"#7aa7dc", "#2b6cb0", "#163e6c"};
constexpr std::array<const char*, 3> kColoursB = {"#f0a35e", "#dd6b20", "#8a3b0a"};
constexpr std::array<Marker, 3> kMarkers = {Marker::kCircle, Marker::kSquare, Marker::kTriangle};
static_assert(kMarkers.size() == kTrackedPercentiles.size(), "a shade and marker per percentile");

constexpr std::array<double, 3> kDistributionDepths = {1, 4, 16};

std::string escaped(const Json& value) {
  return xml_escape(raw_text_of(&value));
}

std::string shortest(double value) {
  char text[32];
  (void)std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string p_value_text(double value) {
  if (value >= 0.001) return fixed(value, 3);
  char text[32];
  (void)std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

// Percentile keys are fio's "99.900000"; anything else is not a percentile.
std::optional<double> percentile_of(const std::string& key) {
  char* end = nullptr;
  const double value = std::strtod(key.c_str(), &end);
  if (key.empty() || end != key.c_str() + key.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string severity_class(const std::string& severity) {
  if (severity == "critical" || severity == "warning" || severity == "info") {
    return "sev-" + severity;
  }
  return "sev-other";
}

std::string verdict_class(const Verdict& verdict) {
  if (verdict.regressed()) return "v-regression";
  if (verdict.improved()) return "v-improvement";
  if (verdict.compared() && verdict.state == VerdictState::kInconclusive) return "v-inconclusive";
  return "v-neutral";
}

// The per-second median that iops_ratio compares, or the window's mean when there are no samples.
std::optional<double> side_iops(const Json& stats) {
  if (auto median = number_at(stats, {"iops_per_second", "median"})) return median;
  return number_at(stats, {"iops"});
}

struct ChartJob {
  double iodepth = 0;
  const Json* a = nullptr;
  const Json* b = nullptr;
};

// Jobs that differ only in queue depth: one set of charts each.
struct JobGroup {
  std::string label;
  std::vector<ChartJob> jobs;
};

std::string block_size_text(const Json& job) {
  const Json* size = at(job, {"bs"});
  if (size == nullptr) return "?";
  if (size->is_number_unsigned()) return format_size(size->get<uint64_t>());
  return raw_text_of(size);
}

// facts: what each of jobs[] is, in the same order; a job without them (a document read back)
// groups by its engine, pattern and block size alone.
std::vector<JobGroup> group_jobs(const Json& jobs, const std::vector<JobFacts>& facts) {
  std::vector<JobGroup> groups;
  std::map<std::string, size_t> index;
  for (size_t position = 0; position < jobs.size(); ++position) {
    const Json& job = jobs[position];
    const JobFacts fact = position < facts.size() ? facts[position] : JobFacts{};
    const auto depth = number_at(job, {"iodepth"});
    const Json* a = object_at(job, {"a"});
    const Json* b = object_at(job, {"b"});
    if (!depth || (a == nullptr && b == nullptr)) continue;
    std::string label = string_at(job, {"engine"}).value_or("?") + " " +
                        string_at(job, {"rw"}).value_or("?") + " " + block_size_text(job) +
                        fact.variant;
    // A mixed pattern is reported per direction, each its own job.
    if (const auto direction = string_at(job, {"direction"}); direction && fact.mixed) {
      label += " (" + *direction + ")";
    }
    auto [it, added] = index.emplace(label, groups.size());
    if (added) groups.push_back({label, {}});
    auto& group = groups[it->second];
    const bool seen = std::any_of(group.jobs.begin(), group.jobs.end(),
                                  [&](const ChartJob& known) { return known.iodepth == *depth; });
    if (!seen) group.jobs.push_back({*depth, a, b});
  }
  return groups;
}

ChartSeries side_series(std::string name, bool is_b, size_t shade) {
  ChartSeries series;
  series.name = std::move(name);
  series.colour = is_b ? kColoursB[shade] : kColoursA[shade];
  series.dashed = is_b;
  return series;
}

std::optional<LineChart> iops_chart(const JobGroup& group) {
  LineChart chart;
  chart.title = "IOPS vs iodepth";
  chart.x = {"iodepth", Scale::kLog2, TickFormat::kPlain};
  chart.y = {"IOPS (per-second median, min–max)", Scale::kLinear, TickFormat::kCount};
  for (const bool is_b : {false, true}) {
    ChartSeries series = side_series(is_b ? "B" : "A", is_b, 1);
    series.marker = is_b ? Marker::kSquare : Marker::kCircle;
    series.dodge = is_b ? 5 : -5;
    for (const auto& job : group.jobs) {
      const Json* stats = is_b ? job.b : job.a;
      if (stats == nullptr) continue;
      const auto iops = side_iops(*stats);
      if (!iops) continue;
      series.points.push_back({job.iodepth, *iops, number_at(*stats, {"iops_per_second", "min"}),
                               number_at(*stats, {"iops_per_second", "max"})});
    }
    if (!series.points.empty()) chart.series.push_back(std::move(series));
  }
  if (chart.series.empty()) return std::nullopt;
  chart.legend_columns = 2;
  return chart;
}

std::optional<LineChart> latency_chart(const JobGroup& group) {
  LineChart chart;
  chart.title = "Latency percentiles vs iodepth";
  chart.x = {"iodepth", Scale::kLog2, TickFormat::kPlain};
  chart.y = {"total latency", Scale::kLog10, TickFormat::kNanoseconds};
  for (const bool is_b : {false, true}) {
    for (size_t i = 0; i < kTrackedPercentiles.size(); ++i) {
      const TrackedPercentile& percentile = kTrackedPercentiles[i];
      ChartSeries series =
          side_series(std::string(is_b ? "B " : "A ") + std::string(percentile.label), is_b, i);
      series.marker = kMarkers[i];
      for (const auto& job : group.jobs) {
        const Json* stats = is_b ? job.b : job.a;
        if (stats == nullptr) continue;
        if (const auto value = number_at(*stats, {"lat_ns", "percentile", percentile.key})) {
          series.points.push_back({job.iodepth, *value, std::nullopt, std::nullopt});
        }
      }
      if (!series.points.empty()) chart.series.push_back(std::move(series));
    }
  }
  if (chart.series.empty()) return std::nullopt;
  chart.legend_columns = static_cast<int>(kTrackedPercentiles.size());
  return chart;
}

std::optional<LineChart> distribution_chart(const JobGroup& group) {
  std::vector<const ChartJob*> picked;
  for (const double depth : kDistributionDepths) {
    const auto job =
        std::find_if(group.jobs.begin(), group.jobs.end(),
                     [&](const ChartJob& candidate) { return candidate.iodepth == depth; });
    if (job != group.jobs.end()) picked.push_back(&*job);
  }
  LineChart chart;
  chart.title = "Latency distribution";
  chart.x = {"total latency", Scale::kLog10, TickFormat::kNanoseconds};
  chart.y = {"percentile", Scale::kNines, TickFormat::kPercentile};
  for (const bool is_b : {false, true}) {
    for (size_t i = 0; i < picked.size(); ++i) {
      ChartSeries series = side_series(
          std::string(is_b ? "B" : "A") + " qd" + fixed(picked[i]->iodepth, 0), is_b, i);
      series.marker = kMarkers[i];
      const Json* stats = is_b ? picked[i]->b : picked[i]->a;
      const Json* percentiles =
          stats != nullptr ? object_at(*stats, {"lat_ns", "percentile"}) : nullptr;
      if (percentiles == nullptr) continue;
      for (const auto& [key, value] : percentiles->items()) {
        const auto percentile = percentile_of(key);
        if (percentile && value.is_number()) {
          series.points.push_back({value.get<double>(), *percentile, std::nullopt, std::nullopt});
        }
      }
      if (!series.points.empty()) chart.series.push_back(std::move(series));
    }
  }
  if (chart.series.empty()) return std::nullopt;
  chart.legend_columns = static_cast<int>(picked.size());
  return chart;
}

class HtmlReport {
 public:
  HtmlReport(const Json& report, const std::vector<JobFacts>& probe_jobs)
      : r_(report), probe_jobs_(probe_jobs) {
    const std::string kind = string_at(r_, {"kind"}).value_or("");
    if (kind == "check") {
      a_name_ = "Baseline";
      b_name_ = "Snapshot";
    }
  }

  std::string render() {
    out_ = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    out_ += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    out_ += "<title>" + xml_escape(page_title()) + "</title>\n";
    out_ += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n<main>\n";
    header();
    status();
    findings();
    not_judged();
    varies_within();
    probe();
    changes();
    unknown_differences();
    kernel_config();
    footer();
    out_ += "</main>\n</body>\n</html>\n";
    return out_;
  }

 private:
  std::string heading() const {
    const auto kind = string_at(r_, {"kind"});
    return "kdrift " + (kind ? *kind + " " : std::string()) + "report";
  }

  std::string page_title() const {
    std::string title = heading();
    const auto a = string_at(r_, {"a", "hostname"});
    const auto b = string_at(r_, {"b", "hostname"});
    if (a && b) return title + ": " + *a + " → " + *b;
    if (b) return title + ": " + *b;
    return title;
  }

  void header() {
    const std::string kind = string_at(r_, {"kind"}).value_or("");
    out_ += "<header>\n<h1>" + xml_escape(heading()) + "</h1>\n";
    if (kind == "diff") {
      out_ += "<p class=\"muted\">A is the reference (before), B the candidate (after).</p>\n";
    }
    const Json* a = object_at(r_, {"a"});
    const Json* b = object_at(r_, {"b"});
    if (a == nullptr && b == nullptr) {
      out_ += "</header>\n";
      return;
    }
    out_ += "<table class=\"sides\">\n<tr><th></th>";
    if (a != nullptr) out_ += "<th>" + xml_escape(a_name_) + "</th>";
    if (b != nullptr) out_ += "<th>" + xml_escape(b_name_) + "</th>";
    out_ += "</tr>\n";
    static constexpr std::array<std::pair<const char*, const char*>, 6> kRows = {{
        {"label", "file"},
        {"hostname", "host"},
        {"kernel", "kernel"},
        {"captured_at", "captured"},
        {"boot_id", "boot id"},
        {"probe_profile", "probe profile"},
    }};
    for (const auto& [key, name] : kRows) {
      const Json* value_a = a != nullptr ? at(*a, {key}) : nullptr;
      const Json* value_b = b != nullptr ? at(*b, {key}) : nullptr;
      if (value_a == nullptr && value_b == nullptr) continue;
      out_ += "<tr><th>" + std::string(name) + "</th>";
      for (const auto& [side, value] : {std::pair{a, value_a}, std::pair{b, value_b}}) {
        if (side == nullptr) continue;
        out_ += value != nullptr ? "<td class=\"mono\">" + escaped(*value) + "</td>"
                                 : "<td class=\"absent\">absent</td>";
      }
      out_ += "</tr>\n";
    }
    out_ += "</table>\n</header>\n";
  }

  void status() {
    const Json* status = object_at(r_, {"status"});
    if (status == nullptr) return;
    out_ += "<div class=\"status\">\n";
    if (const auto exit = number_at(*status, {"exit_status"})) {
      out_ += "<span class=\"badge exit\">exit status " + fixed(*exit, 0) + "</span>\n";
    }
    for (const char* counter : {"critical", "warning", "info", "regressions", "inconclusive"}) {
      const auto count = number_at(*status, {counter});
      if (!count) continue;
      std::string style = "zero";
      if (*count > 0) {
        const std::string_view name = counter;
        style = name == "regressions"    ? "v-regression"
                : name == "inconclusive" ? "v-inconclusive"
                                         : severity_class(counter);
      }
      out_ +=
          "<span class=\"badge " + style + "\">" + fixed(*count, 0) + " " + counter + "</span>\n";
    }
    out_ += "</div>\n";
  }

  void findings() {
    const Json* list = at(r_, {"findings"});
    if (list == nullptr || !list->is_array()) return;
    out_ += "<section id=\"findings\">\n<h2>Findings</h2>\n";
    struct Ranked {
      double rank;
      const Json* finding;
    };
    std::vector<Ranked> ranked;
    for (const auto& finding : *list) {
      if (!finding.is_object()) continue;
      ranked.push_back(
          {number_at(finding, {"rank"}).value_or(std::numeric_limits<double>::max()), &finding});
    }
    if (ranked.empty()) {
      out_ += "<p class=\"muted\">No findings.</p>\n</section>\n";
      return;
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Ranked& x, const Ranked& y) { return x.rank < y.rank; });
    out_ +=
        "<table class=\"findings\">\n<colgroup><col class=\"rank\"><col class=\"severity\">"
        "<col class=\"finding\"><col class=\"direction\"><col class=\"subjects\">"
        "<col class=\"evidence\"><col class=\"remedy\"></colgroup>\n"
        "<tr><th>#</th><th>severity</th><th>finding</th><th>direction</th>"
        "<th>subjects</th><th>evidence</th><th>remedy</th></tr>\n";
    for (const auto& entry : ranked)
      finding_row(*entry.finding);
    out_ += "</table>\n</section>\n";
  }

  // The rules that met facts a snapshot does not know: neither flagged nor cleared there.
  void not_judged() {
    const Json& list = array_at(r_, {"not_judged"});
    if (list.empty()) return;
    out_ += "<section id=\"not-judged\">\n<h2>Could not judge</h2>\n<ul>\n";
    for (const auto& rule : list) {
      out_ += "<li><code>" + xml_escape(raw_text_of(at(rule, {"id"}))) + "</code> " +
              xml_escape(raw_text_of(at(rule, {"title"}))) + "<ul>\n";
      for (const auto& fact : array_at(rule, {"facts"})) {
        const auto side = string_at(fact, {"side"});
        const std::string& name = side == "a" ? a_name_ : b_name_;
        out_ += "<li>" + (side ? xml_escape(name) + ": " : std::string()) + "<code>" +
                xml_escape(raw_text_of(at(fact, {"path"}))) +
                "</code> unknown: " + xml_escape(raw_text_of(at(fact, {"why"}))) + "</li>\n";
      }
      out_ += "</ul></li>\n";
    }
    out_ += "</ul>\n</section>\n";
  }

  void finding_row(const Json& finding) {
    out_ += "<tr>\n<td class=\"rank\">";
    if (const Json* rank = at(finding, {"rank"})) out_ += escaped(*rank);
    out_ += "</td>\n<td>";
    if (const auto severity = string_at(finding, {"severity"})) {
      out_ += "<span class=\"badge " + severity_class(*severity) + "\">" + xml_escape(*severity) +
              "</span>";
    }
    out_ += "</td>\n<td>";
    if (const Json* title = at(finding, {"title"})) {
      out_ += "<div class=\"finding-title\">" + escaped(*title) + "</div>";
    }
    if (const Json* id = at(finding, {"id"})) out_ += "<code>" + escaped(*id) + "</code>";
    if (const Json* explanation = at(finding, {"explanation"})) {
      out_ += "<p class=\"explanation\">" + escaped(*explanation) + "</p>";
    }
    out_ += "</td>\n<td>";
    if (const auto direction = string_at(finding, {"direction"})) {
      const bool known =
          *direction == "regressed" || *direction == "improved" || *direction == "changed";
      out_ += "<span" + (known ? " class=\"dir-" + *direction + "\"" : std::string()) + ">" +
              xml_escape(*direction) + "</span>";
    }
    out_ += "</td>\n<td class=\"subjects\">";
    for (const auto& subject : array_at(finding, {"subjects"})) {
      out_ += "<code>" + escaped(subject) + "</code> ";
    }
    out_ += "</td>\n<td>";
    lines("", array_at(finding, {"evidence"}), "lines");
    lines("proof", array_at(finding, {"proof"}), "lines proof");
    out_ += "</td>\n<td>";
    if (const Json* remedy = at(finding, {"remedy"}))
      out_ += "<code>" + escaped(*remedy) + "</code>";
    out_ += "</td>\n</tr>\n";
  }

  void lines(std::string_view label, const Json& items, std::string_view list_class) {
    if (items.empty()) return;
    if (!label.empty()) out_ += "<div class=\"label\">" + std::string(label) + "</div>";
    out_ += "<ul class=\"" + std::string(list_class) + "\">";
    for (const auto& item : items)
      out_ += "<li>" + escaped(item) + "</li>";
    out_ += "</ul>";
  }

  void probe() {
    const Json* probe = object_at(r_, {"probe"});
    if (probe == nullptr) return;
    out_ += "<section id=\"probe\">\n<h2>Probe</h2>\n";
    if (const Json* why = at(*probe, {"unavailable"})) {
      out_ += "<p>No comparison: " + escaped(*why) + "</p>\n";
    }
    const Json& jobs = array_at(*probe, {"jobs"});
    charts(jobs);
    job_table(jobs, number_at(*probe, {"alpha"}));
    out_ += "</section>\n";
  }

  void charts(const Json& jobs) {
    bool explained = false;
    for (const auto& group : group_jobs(jobs, probe_jobs_)) {
      std::vector<LineChart> drawn;
      for (auto chart : {iops_chart(group), latency_chart(group), distribution_chart(group)}) {
        if (chart) drawn.push_back(std::move(*chart));
      }
      if (drawn.empty()) continue;
      if (!explained) {
        out_ += "<p class=\"muted\">" + xml_escape(a_name_) + " solid, " + xml_escape(b_name_) +
                " dashed. IOPS points are the per-second median, whiskers the per-second minimum "
                "and maximum; latency is total, from preparing the I/O to reaping it.</p>\n";
        explained = true;
      }
      out_ += "<h3>" + xml_escape(group.label) + "</h3>\n<div class=\"charts\">\n";
      for (const auto& chart : drawn) {
        out_ += "<figure>\n" + render_svg_chart(chart) + "</figure>\n";
      }
      out_ += "</div>\n";
    }
  }

  void job_table(const Json& jobs, std::optional<double> alpha) {
    if (jobs.empty()) return;
    out_ += "<h3>Jobs</h3>\n";
    out_ +=
        "<p class=\"muted\">IOPS: per-second median. B/A with the interval the verdict was "
        "decided on (the runs' own bootstrap interval widened by what a re-run could move them); "
        "changed when it excludes 1 and the ratio is outside ±5 %, equivalent when it lies "
        "inside ±5 %, else inconclusive. p from a two-sided Mann–Whitney U test on the runs";
    if (alpha) out_ += "; level α = " + shortest(*alpha);
    out_ +=
        ".</p>\n<table class=\"jobs\">\n<tr><th>job</th><th class=\"num\">A IOPS</th>"
        "<th class=\"num\">B IOPS</th><th class=\"num\">B/A</th><th class=\"num\">" +
        xml_escape(interval_heading(1 - alpha.value_or(0.01))) +
        "</th><th class=\"num\">p</th><th>verdict</th></tr>\n";
    for (const auto& job : jobs) {
      if (!job.is_object()) continue;
      out_ += "<tr><td class=\"mono\">" + xml_escape(raw_text_of(at(job, {"name"}))) + "</td>";
      for (const char* side : {"a", "b"}) {
        const Json* stats = object_at(job, {side});
        const auto iops = stats != nullptr ? side_iops(*stats) : std::nullopt;
        out_ += "<td class=\"num\">" + (iops ? count_text(*iops) : std::string()) + "</td>";
      }
      const auto ratio = number_at(job, {"iops_ratio"});
      out_ += "<td class=\"num\">" + (ratio ? fixed(*ratio, 2) + "×" : std::string()) + "</td>";
      const Verdict verdict = Verdict::from_json(job);
      out_ +=
          "<td class=\"num\">" +
          (verdict.bounds ? fixed(verdict.bounds->low, 2) + " – " + fixed(verdict.bounds->high, 2)
                          : std::string()) +
          "</td>";
      const auto p = number_at(job, {"p_value"});
      out_ += "<td class=\"num\">" + (p ? p_value_text(*p) : std::string()) + "</td><td>";
      out_ += "<span class=\"badge " + verdict_class(verdict) + "\">" +
              xml_escape(verdict_token(verdict)) + "</span>";
      // Why there is no comparison (too few samples, a failed side) and what would decide an
      // undecided one: the diff says so per job.
      if (const Json* reason = at(job, {"reason"})) {
        out_ += "<div class=\"muted\">" + escaped(*reason) + "</div>";
      }
      if (const std::string deciding = deciding_text(verdict); !deciding.empty()) {
        out_ += "<div class=\"muted\">" + xml_escape(deciding) + "</div>";
      }
      out_ += "</td></tr>\n";
    }
    out_ += "</table>\n";
  }

  // Several snapshots a side: findings that hold for some pairs only, and values that differ
  // between a side's own snapshots.
  void varies_within() {
    const Json* within = object_at(r_, {"varies_within"});
    if (within == nullptr) return;
    bool any = !array_at(*within, {"findings"}).empty();
    for (const char* side : {"a", "b"}) {
      const Json* sections = object_at(*within, {side});
      if (sections == nullptr) continue;
      any = any || std::any_of(sections->begin(), sections->end(),
                               [](const Json& list) { return list.is_array() && !list.empty(); });
    }
    if (!any) return;
    out_ += "<section id=\"varies-within\">\n<h2>Differs within a side (not a change)</h2>\n";
    const Json& some = array_at(*within, {"findings"});
    if (!some.empty()) {
      out_ += "<ul>\n";
      for (const auto& finding : some) {
        const auto text = [&](const char* key) {
          return xml_escape(raw_text_of(at(finding, {key})));
        };
        out_ += "<li><code>" + text("id") + "</code> " + text("title") + " (" + text("pairs") +
                " of " + text("of") + " pairs)</li>\n";
      }
      out_ += "</ul>\n";
    }
    for (const auto& [side, name] : {std::pair{"a", &a_name_}, std::pair{"b", &b_name_}}) {
      const Json* sections = object_at(*within, {side});
      if (sections == nullptr) continue;
      for (const auto& [section, list] : sections->items()) {
        if (list.is_array() && !list.empty())
          pair_table(*name + ": " + section, list, "path", "absent");
      }
    }
    out_ += "</section>\n";
  }

  void changes() {
    const Json* sections = object_at(r_, {"changes"});
    if (sections == nullptr) return;
    out_ += "<section id=\"changes\">\n<h2>Changes</h2>\n";
    bool any = false;
    for (const auto& [section, list] : sections->items()) {
      if (!list.is_array() || list.empty()) continue;
      any = true;
      pair_table(section, list, "path", "absent");
    }
    if (!any) out_ += "<p class=\"muted\">No changes.</p>\n";
    out_ += "</section>\n";
  }

  // Known on one side, unknown on the other: no change of setting, so a section of its own.
  void unknown_differences() {
    const Json* sections = object_at(r_, {"unknown_differences"});
    if (sections == nullptr || sections->empty()) return;
    out_ += "<section id=\"unknown-differences\">\n<h2>Known on one side only</h2>\n";
    for (const auto& [section, list] : sections->items()) {
      if (list.is_array() && !list.empty()) pair_table(section, list, "path", "absent");
    }
    out_ += "</section>\n";
  }

  void kernel_config() {
    const Json* config = object_at(r_, {"kernel_config"});
    if (config == nullptr) return;
    out_ += "<section id=\"kernel-config\">\n<h2>Kernel config</h2>\n";
    const auto source_a = string_at(*config, {"source", "a"});
    const auto source_b = string_at(*config, {"source", "b"});
    if (source_a || source_b) {
      out_ += "<p>Source: ";
      if (source_a) out_ += xml_escape(a_name_) + " <code>" + xml_escape(*source_a) + "</code>";
      if (source_a && source_b) out_ += ", ";
      if (source_b) out_ += xml_escape(b_name_) + " <code>" + xml_escape(*source_b) + "</code>";
      out_ += "</p>\n";
    }
    for (const auto& group : array_at(*config, {"groups"})) {
      const Json& changed = array_at(group, {"changed"});
      if (!changed.empty())
        pair_table(raw_text_of(at(group, {"name"})), changed, "symbol", "absent");
    }
    if (const auto absent = string_at(*config, {"absent"})) {
      out_ += "<p><em>absent</em>: " + xml_escape(*absent) + ".</p>\n";
    }
    if (const auto count = number_at(*config, {"other", "count"})) {
      out_ += "<p>" + fixed(*count, 0) + " other symbols changed";
      const Json* prefixes = object_at(*config, {"other", "by_prefix"});
      if (prefixes != nullptr && !prefixes->empty()) {
        std::string list;
        for (const auto& [prefix, number] : prefixes->items()) {
          list += (list.empty() ? "" : ", ") + ("<code>" + xml_escape(prefix) + "</code> ") +
                  escaped(number);
        }
        out_ += ": " + list;
      }
      out_ += ".</p>\n";
    }
    out_ += "</section>\n";
  }

  void footer() {
    out_ += "<footer>";
    const auto name = string_at(r_, {"tool", "name"});
    const auto version = string_at(r_, {"tool", "version"});
    if (name) out_ += xml_escape(*name) + (version ? " " + xml_escape(*version) : "") + " · ";
    out_ += xml_escape(string_at(r_, {"schema"}).value_or("no schema")) + "</footer>\n";
  }

  // A heading and a row per entry: its key, then A's and B's values, or missing where a side has
  // none.
  void pair_table(const std::string& heading, const Json& rows, const char* key,
                  std::string_view missing) {
    out_ += "<h3>" + xml_escape(heading) + "</h3>\n<table class=\"pairs\">\n<colgroup><col " +
            "class=\"key\"><col><col></colgroup>\n<tr><th>" + key + "</th><th>" +
            xml_escape(a_name_) + "</th><th>" + xml_escape(b_name_) + "</th></tr>\n";
    for (const auto& row : rows) {
      if (!row.is_object()) continue;
      out_ += "<tr><td class=\"mono\">" + xml_escape(raw_text_of(at(row, {key}))) + "</td>";
      for (const char* side : {"a", "b"}) {
        const Json* value = at(row, {side});
        const auto unknown = string_at(row, {std::string(side) + "_unknown"});
        if (value != nullptr) {
          out_ += "<td class=\"mono\">" + escaped(*value) + "</td>";
        } else if (unknown) {
          out_ += "<td class=\"absent\">unknown: " + xml_escape(*unknown) + "</td>";
        } else {
          out_ += "<td class=\"absent\">" + std::string(missing) + "</td>";
        }
      }
      out_ += "</tr>\n";
    }
    out_ += "</table>\n";
  }

  const Json& r_;
  const std::vector<JobFacts>& probe_jobs_;
  std::string a_name_ = "A";
  std::string b_name_ = "B";
  std::string out_;
};

}  // namespace

std::string render_report_html(const Json& report, const std::vector<JobFacts>& probe_jobs) {
  return HtmlReport(report, probe_jobs).render();
}

}  // namespace kdrift
