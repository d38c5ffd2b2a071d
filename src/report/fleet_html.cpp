#include "report/fleet_html.h"

#include <algorithm>
#include <cmath>

#include "report/svg_chart.h"
#include "report/text_table.h"
#include "report/verdict_text.h"

namespace kdrift {
namespace {

constexpr std::string_view kStyle = R"(
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1a202c;background:#fff}
main{max-width:1200px;margin:0 auto;padding:1.5em}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em}
th,td{border-bottom:1px solid #e2e8f0;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f7fafc}
tr.critical td:first-child{border-left:4px solid #c53030}
tr.warning td:first-child{border-left:4px solid #dd6b20}
tr.info td:first-child{border-left:4px solid #3182ce}
.sev-critical{color:#c53030;font-weight:600}.sev-warning{color:#dd6b20;font-weight:600}
code{font-size:92%}ul{margin:0;padding-left:1.1em}
)";

// Colour-blind-safe, in order (Okabe and Ito).
constexpr const char* kPalette[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                    "#56b4e9", "#d55e00", "#f0e442", "#000000"};
constexpr std::size_t kChartedGroups = 8;

std::string esc(const Json& root, std::initializer_list<std::string_view> keys) {
  return xml_escape(raw_text_of(at(root, keys), "?"));
}

std::string count(const Json& root, std::initializer_list<std::string_view> keys) {
  return std::to_string(count_at(root, keys).value_or(0));
}

std::string outlier_row(const Json& outlier) {
  const std::string severity = raw_text_of(at(outlier, {"severity"}), "info");
  std::string row = "<tr class=\"" + xml_escape(severity) + "\"><td>" + count(outlier, {"rank"}) +
                    "</td><td><b>" + esc(outlier, {"host"}) + "</b><br><small>" +
                    esc(outlier, {"kernel"}) + "</small></td><td class=\"sev-" +
                    xml_escape(severity) + "\">" + xml_escape(severity) + "</td><td><ul>";
  for (const Json& deviation : array_at(outlier, {"deviations"})) {
    row += "<li><code>" + esc(deviation, {"fact"}) + "</code> = " + esc(deviation, {"value"}) +
           " (peers: " + esc(deviation, {"majority"}) + ", " +
           count(deviation, {"majority_hosts"}) + " of " + count(deviation, {"peer_hosts"}) +
           ")</li>";
  }
  row += "</ul></td><td><ul>";
  for (const Json& finding : array_at(outlier, {"findings"})) {
    row += "<li><span class=\"sev-" + esc(finding, {"severity"}) + "\">" +
           esc(finding, {"severity"}) + "</span> <code>" + esc(finding, {"id"}) +
           "</code>: " + esc(finding, {"title"}) + "</li>";
  }
  return row + "</ul></td><td>" + esc(outlier, {"reference"}) + "</td></tr>\n";
}

// The outliers, then the rest of the fleet in its own table, a row per fingerprint group: what
// its hosts share is not a difference, so it does not stand under "differs from its peers in".
std::string outliers_table(const Json& fleet) {
  std::string html = "<h2>Hosts: outliers first</h2>\n";
  const Json& outliers = array_at(fleet, {"outliers"});
  if (outliers.empty()) {
    html += "<p>No outlier: every host holds its peers' majority on every fact.</p>\n";
  } else {
    html +=
        "<table><tr><th>#</th><th>host</th><th>severity</th><th>differs from its peers "
        "in</th><th>findings against the reference</th><th>reference</th></tr>\n";
    for (const Json& outlier : outliers)
      html += outlier_row(outlier);
    html += "</table>\n";
  }
  const Json& groups = array_at(fleet, {"groups"});
  if (groups.empty()) return html;
  html +=
      "<h3>Fingerprint groups (hosts that agree on every fact)</h3>\n<table><tr><th>group</th>"
      "<th>hosts</th><th>kernel</th><th>hardware</th></tr>\n";
  for (const Json& group : groups) {
    std::string examples;
    for (const Json& host : array_at(group, {"examples"}))
      examples += xml_escape(raw_text_of(&host)) + " ";
    html += "<tr><td>" + esc(group, {"id"}) + "</td><td>" + count(group, {"hosts"}) +
            "<br><small>" + examples + "</small></td><td>" + esc(group, {"kernel"}) + "</td><td>" +
            esc(group, {"hardware"}) + "</td></tr>\n";
  }
  return html + "</table>\n";
}

// One chart per probe job: its median IOPS in each of the largest groups, as points on one
// category axis (group number), so the groups' throughput reads side by side.
std::string probe_charts(const Json& fleet) {
  const Json& groups = array_at(fleet, {"groups"});
  std::map<std::string, std::vector<std::pair<std::size_t, double>>> by_job;
  for (std::size_t g = 0; g < groups.size() && g < kChartedGroups; ++g) {
    const Json* probe = object_at(groups[g], {"probe"});
    if (probe == nullptr) continue;
    for (const auto& [job, entry] : probe->items()) {
      if (auto iops = number_at(entry, {"iops_median"})) by_job[job].emplace_back(g + 1, *iops);
    }
  }
  if (by_job.empty()) return "";
  std::string html =
      "<h2>Probe IOPS per fingerprint group (median of the group's hosts)</h2>\n<div>";
  for (const auto& [job, points] : by_job) {
    LineChart chart;
    chart.title = job;
    chart.x = {"group (g1 = largest)", Scale::kLinear, TickFormat::kPlain};
    chart.y = {"IOPS", Scale::kLinear, TickFormat::kCount};
    for (const auto& [group, iops] : points) {
      ChartSeries series;
      series.name = "g" + std::to_string(group);
      series.colour = kPalette[(group - 1) % std::size(kPalette)];
      series.marker = static_cast<Marker>((group - 1) % 4);
      series.points.push_back({static_cast<double>(group), iops, std::nullopt, std::nullopt});
      chart.series.push_back(std::move(series));
    }
    html += render_svg_chart(chart);
  }
  return html + "</div>\n";
}

// A row's verdict, and under it what would decide an inconclusive one.
std::string verdict_cell(const Json& row) {
  const Verdict verdict = Verdict::from_json(row);
  std::string cell = "<td>" + xml_escape(verdict_token(verdict));
  if (const std::string deciding = deciding_text(verdict); !deciding.empty()) {
    cell += "<br><small>" + xml_escape(deciding) + "</small>";
  }
  return cell + "</td>";
}

std::string probe_jobs_table(const Json& compared) {
  const Json& jobs = array_at(compared, {"probe", "jobs"});
  if (jobs.empty()) {
    return "<p>Probe jobs: " +
           xml_escape(text_at(compared, {"probe", "unavailable"}, "no job ran in both groups")) +
           ".</p>\n";
  }
  std::string html =
      "<table><tr><th>probe job</th><th>IOPS ratio</th><th>" +
      xml_escape(interval_heading(1 - number_at(compared, {"probe", "alpha"}).value_or(0.01))) +
      "</th><th>verdict</th></tr>\n";
  for (const Json& job : jobs) {
    html += "<tr><td>" + esc(job, {"name"}) + "</td><td>" +
            fixed(number_at(job, {"iops_ratio"}).value_or(0), 2) + "</td><td>" +
            xml_escape(bounds_text(Verdict::from_json(job))) + "</td>" + verdict_cell(job) +
            "</tr>\n";
  }
  return html + "</table>\n";
}

std::string comparison_section(const Json& fleet) {
  const Json* compared = object_at(fleet, {"comparison"});
  if (compared == nullptr) return "";
  const std::string candidate = esc(*compared, {"candidate", "name"});
  const std::string reference = esc(*compared, {"reference", "name"});
  std::string html = "<h2>" + candidate + " (" + count(*compared, {"candidate", "hosts"}) +
                     " hosts) against " + reference + " (" +
                     count(*compared, {"reference", "hosts"}) +
                     " hosts)</h2>\n<table><tr><th>finding</th><th>severity</th><th>" + candidate +
                     "</th><th>" + reference + "</th><th>p</th><th>verdict</th></tr>\n";
  for (const Json& row : array_at(*compared, {"findings"})) {
    html += "<tr><td><code>" + esc(row, {"id"}) + "</code> " + esc(row, {"title"}) + "</td><td>" +
            esc(row, {"severity"}) + "</td><td>" + count(row, {"candidate_hosts"}) + "</td><td>" +
            count(row, {"reference_hosts"}) + "</td><td>" +
            fixed(number_at(row, {"p_value"}).value_or(1), 3) + "</td>" + verdict_cell(row) +
            "</tr>\n";
  }
  html += "</table>\n<table><tr><th>setting</th><th>value</th><th>" + candidate + "</th><th>" +
          reference + "</th><th>p</th><th>verdict</th></tr>\n";
  for (const Json& row : array_at(*compared, {"facts"})) {
    html += "<tr><td><code>" + esc(row, {"fact"}) + "</code></td><td>" + esc(row, {"value"}) +
            "</td><td>" + count(row, {"candidate_hosts"}) + "</td><td>" +
            count(row, {"reference_hosts"}) + "</td><td>" +
            fixed(number_at(row, {"p_value"}).value_or(1), 3) + "</td>" + verdict_cell(row) +
            "</tr>\n";
  }
  return html + "</table>\n" + probe_jobs_table(*compared);
}

std::string splits_section(const Json& fleet) {
  const Json& splits = array_at(fleet, {"splits"});
  if (splits.empty()) return "";
  std::string html =
      "<h2>Settings that split the fleet</h2>\n<table><tr><th>fact</th><th>hosts per "
      "value</th></tr>\n";
  for (const Json& split : splits) {
    html += "<tr><td><code>" + esc(split, {"fact"}) + "</code></td><td>";
    for (const Json& value : array_at(split, {"values"})) {
      html += esc(value, {"value"}) + " (" + count(value, {"hosts"}) + ") ";
    }
    html += "</td></tr>\n";
  }
  return html + "</table>\n";
}

}  // namespace

std::string render_fleet_html(const Json& fleet) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>kdrift fleet: " +
      count(fleet, {"hosts"}) + " hosts</title>\n<style>" + std::string(kStyle) +
      "</style>\n</head>\n<body>\n<main>\n";
  html += "<h1>kdrift fleet: " + count(fleet, {"hosts"}) + " hosts, " +
          count(fleet, {"status", "outliers"}) + " outliers</h1>\n<p>critical " +
          count(fleet, {"status", "critical"}) + ", warning " +
          count(fleet, {"status", "warning"}) + ", info " + count(fleet, {"status", "info"}) +
          "; " + std::to_string(array_at(fleet, {"peers"}).size()) +
          " peer groups (hardware and kernel), " + count(fleet, {"groups_count"}) +
          " fingerprints.</p>\n";
  html += outliers_table(fleet);
  html += comparison_section(fleet);
  html += probe_charts(fleet);
  html += splits_section(fleet);
  html += "<footer><small>" + esc(fleet, {"schema"}) + ", " + esc(fleet, {"tool", "name"}) + " " +
          esc(fleet, {"tool", "version"}) + "</small></footer>\n</main>\n</body>\n</html>\n";
  return html;
}

}  // namespace kdrift
