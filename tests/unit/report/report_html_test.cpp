#include "report/report_html.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "report/svg_chart.h"
#include "support/fixtures.h"
#include "support/hostile_text.h"

namespace kdrift {
namespace {

Json sample_report() {
  const std::string path = testing::source_dir() + "/tests/fixtures/reports/sample-diff.json";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

size_t count_of(const std::string& text, std::string_view needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// Whether offset lies inside a tag (where an attribute could fetch something) rather than in text.
bool inside_tag(const std::string& html, size_t offset) {
  const size_t open = html.rfind('<', offset);
  const size_t close = html.rfind('>', offset);
  return open != std::string::npos && (close == std::string::npos || open > close);
}

// "nan" or "inf" as a word: a coordinate or label printed from a value that is not a number.
bool has_non_finite(const std::string& text) {
  const auto letter = [&](size_t at) {
    return at < text.size() && std::isalpha(static_cast<unsigned char>(text[at])) != 0;
  };
  for (const char* word : {"nan", "inf", "NaN", "Inf"}) {
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
      if ((at == 0 || !letter(at - 1)) && !letter(at + 3)) return true;
    }
  }
  return false;
}

TEST(ReportHtml, OneChartOfEachKindPerWorkload) {
  const std::string html = render_report_html(sample_report(), {});
  // io_uring and libaio randread 4k: IOPS, latency percentiles and latency distribution each.
  EXPECT_EQ(count_of(html, "<svg"), 6u);
  EXPECT_EQ(count_of(html, "<figure>"), 6u);
  EXPECT_NE(html.find("<h3>io_uring randread 4k</h3>"), std::string::npos);
  EXPECT_NE(html.find("<h3>libaio randread 4k</h3>"), std::string::npos);
  // Only in B, so nothing to compare: a table row, no charts.
  EXPECT_EQ(html.find("<h3>io_uring+iopoll"), std::string::npos);
  EXPECT_NE(html.find("io_uring+iopoll randread 4k qd16"), std::string::npos);
  for (const char* title : {"IOPS vs iodepth", "Latency percentiles vs iodepth",
                            "Latency distribution", "iodepth", "total latency", "percentile"}) {
    EXPECT_NE(html.find(std::string(">") + title + "</text>"), std::string::npos) << title;
  }
  EXPECT_NE(html.find(">A p99.9</text>"), std::string::npos);
  EXPECT_NE(html.find(">B qd16</text>"), std::string::npos);
}

TEST(ReportHtml, FindingsInRankOrder) {
  const Json report = sample_report();
  Json reversed = report;
  std::reverse(reversed["findings"].begin(), reversed["findings"].end());
  for (const auto& html : {render_report_html(report, {}), render_report_html(reversed, {})}) {
    size_t previous = 0;
    for (const char* id : {"iommu.dma-translation", "probe.regression", "iommu.cmdline",
                           "kernel.config", "block.scheduler"}) {
      const size_t at = html.find(std::string("<code>") + id + "</code>");
      ASSERT_NE(at, std::string::npos) << id;
      EXPECT_GT(at, previous) << id << " out of rank order";
      previous = at;
    }
  }
}

TEST(ReportHtml, ShowsEveryPartOfAFinding) {
  const std::string html = render_report_html(sample_report(), {});
  EXPECT_NE(html.find("<span class=\"badge sev-critical\">critical</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"dir-regressed\">regressed</span>"), std::string::npos);
  EXPECT_NE(html.find("<code>0000:01:00.0</code>"), std::string::npos);
  EXPECT_NE(html.find("<li>iommu.devices[nvme0n1].mode: passthrough → translated-strict</li>"),
            std::string::npos);
  EXPECT_NE(html.find("<li>trace.iommu.maps_per_io 0.00 → 1.00 (io_uring randread 4k qd16)</li>"),
            std::string::npos);
  EXPECT_NE(html.find("<code>GRUB_CMDLINE_LINUX=&quot;intel_iommu=on iommu=pt&quot;"),
            std::string::npos);
  EXPECT_NE(html.find("strict mode flushes the IOTLB"), std::string::npos);
  // The job table, the changes and the kernel config diff.
  EXPECT_NE(html.find("0.55×"), std::string::npos);
  EXPECT_NE(html.find("0.54 – 0.56"), std::string::npos);
  EXPECT_NE(html.find("<h3>iommu</h3>"), std::string::npos);
  EXPECT_NE(html.find("translated-strict</td>"), std::string::npos);
  // Missing from A's generated config, which is not "# ... is not set".
  EXPECT_NE(html.find("CONFIG_IOMMU_DEFAULT_DMA_STRICT</td><td class=\"absent\">absent</td>"),
            std::string::npos);
  EXPECT_NE(html.find("1412 other symbols changed"), std::string::npos);
}

TEST(ReportHtml, NothingFromTheReportBecomesMarkupOrAFetch) {
  const std::string html = render_report_html(sample_report(), {});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(
      html.find("stor-b02&lt;script src=&quot;https://evil.example/x.js&quot;&gt;alert(&#39;pwned "
                "&amp; &quot;owned&quot;&#39;)&lt;/script&gt;"),
      std::string::npos);
  EXPECT_NE(html.find("after-6.6 &amp; iommu.json"), std::string::npos);
  // The report's text may mention URLs and attributes; none of them may end up inside a tag.
  for (const char* token : {"http://", "https://", " src=", " href="}) {
    for (size_t at = html.find(token); at != std::string::npos; at = html.find(token, at + 1)) {
      EXPECT_FALSE(inside_tag(html, at)) << token << " inside a tag at " << at;
    }
  }
  for (const char* fetching : {"url(", "@import", "<link", "<img", "<iframe", "<object"}) {
    EXPECT_EQ(html.find(fetching), std::string::npos) << fetching;
  }
}

// Values from a snapshot with markup and terminal escapes: neither becomes a tag nor reaches the
// page as a control byte (a terminal showing the file, or a browser's view-source).
TEST(ReportHtml, HostileSnapshotValuesRenderInert) {
  Json report = sample_report();
  report["b"]["hostname"] = testing::hostile_value("host");
  report["findings"][0]["evidence"] = {testing::hostile_value("evidence")};
  report["findings"][0]["title"] = "<script>alert(1)</script>" + testing::hostile_value("title");
  const std::string html = render_report_html(report, {});
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(testing::control_bytes(html), std::vector<unsigned>{});
  // Control characters become U+FFFD; the line break stays, as text.
  EXPECT_NE(html.find("host\xEF\xBF\xBD]0;pwned\xEF\xBF\xBD\xEF\xBF\xBD[2J\xEF\xBF\xBD\xEF\xBF\xBD"
                      "31m&lt;img "
                      "src=x onerror=alert(1)&gt;\n| injected |`x"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;title\xEF\xBF\xBD"), std::string::npos);
}

Json compared_job(const std::string& name, const std::string& rw, int depth,
                  const std::string& direction) {
  const Json side = {{"iops", 1000}, {"lat_ns", {{"percentile", {{"50.000000", 1000}}}}}};
  Json job = {{"name", name}, {"engine", "libaio"}, {"rw", rw}, {"iodepth", depth}};
  job["bs"] = uint64_t{4096};  // as a report holds it: unsigned, shown as 4k
  job["direction"] = direction;
  job["a"] = side;
  job["b"] = side;
  return job;
}

// Charts group jobs that differ only in depth by their typed facts (the variant, whether the
// pattern is mixed), never by what their names say.
TEST(ReportHtml, ChartGroupsFollowTheJobsFacts) {
  const Json report = {{"kind", "diff"},
                       {"probe",
                        {{"jobs",
                          {compared_job("libaio randread 4k qd1", "randread", 1, "read"),
                           compared_job("libaio randread 4k qd4 window8", "randread", 4, "read"),
                           compared_job("libaio randread 4k qd4 spin", "randread", 4, "read"),
                           compared_job("libaio randrw50 4k qd4", "randrw", 4, "read"),
                           compared_job("libaio randrw50 4k qd4", "randrw", 4, "write")}}}}};
  std::vector<JobFacts> facts(5);
  facts[2].variant = " spin";
  facts[3].mixed = true;
  facts[4].mixed = true;
  const std::string html = render_report_html(report, facts);
  EXPECT_EQ(count_of(html, "<h3>libaio randread 4k</h3>"), 1U);
  EXPECT_EQ(count_of(html, "<h3>libaio randread 4k spin</h3>"), 1U);
  EXPECT_EQ(html.find("window8</h3>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<h3>libaio randrw 4k (read)</h3>"), 1U);
  EXPECT_EQ(count_of(html, "<h3>libaio randrw 4k (write)</h3>"), 1U);
  // Without facts (a document read back) a job groups by engine, pattern and size alone.
  const std::string bare = render_report_html(report, {});
  EXPECT_EQ(bare.find("spin</h3>"), std::string::npos);
  EXPECT_EQ(count_of(bare, "<h3>libaio randrw 4k</h3>"), 1U);
}

TEST(ReportHtml, JobsWithoutAComparisonSayWhy) {
  const Json report = {
      {"kind", "diff"},
      {"probe",
       {{"alpha", 0.01},
        {"jobs",
         {{{"name", "libaio randread 4k qd1"},
           {"verdict", "inconclusive"},
           {"state", "inconclusive"},
           {"decide", {{"unit", "seconds"}, {"now", 2}, {"needed", 5}}},
           {"reason", "2 and 2 per-second samples cannot reach p < alpha"}}}}}},
  };
  const std::string html = render_report_html(report, {});
  EXPECT_NE(html.find("v-inconclusive\">inconclusive</span><div class=\"muted\">2 and 2 "
                      "per-second samples cannot reach p &lt; alpha</div><div class=\"muted\">5 "
                      "seconds a side would decide it at the noise seen (now 2): a longer probe "
                      "run</div>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

TEST(ReportHtml, CheckWithoutBaselineRenders) {
  const Json report = {
      {"schema", "kdrift.report/1"},
      {"kind", "check"},
      {"tool", {{"name", "kdrift"}, {"version", "0.1.0"}}},
      {"b", {{"label", "host.json"}, {"hostname", "db-1"}, {"kernel", "6.12.9"}, {"boot_id", "x"}}},
      {"status", {{"exit_status", 1}, {"critical", 0}, {"warning", 1}, {"info", 0}}},
      {"findings",
       {{{"rank", 1},
         {"id", "nvme.poll-queues"},
         {"severity", "warning"},
         {"title", "No poll queues on nvme0"},
         {"direction", "present"},
         {"subjects", {"nvme0"}},
         {"evidence", {"nvme.controllers[nvme0].queues.poll = 0"}},
         {"proof", Json::array()},
         {"explanation", "IOPOLL jobs cannot poll."},
         {"remedy", "nvme.poll_queues=2"},
         {"score", 2.5}}}},
  };
  const std::string html = render_report_html(report, {});
  EXPECT_NE(html.find("<h1>kdrift check report</h1>"), std::string::npos);
  EXPECT_NE(html.find("<th>Snapshot</th>"), std::string::npos);
  EXPECT_EQ(html.find("<th>Baseline</th>"), std::string::npos);
  EXPECT_NE(html.find("No poll queues on nvme0"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge sev-warning\">1 warning</span>"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("id=\"changes\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"probe\""), std::string::npos);
}

TEST(ReportHtml, WrongTypesAreTreatedAsAbsent) {
  const Json odd = Json::parse(R"({
    "schema": 1, "kind": ["diff"], "tool": "kdrift",
    "a": "not a side", "b": {"hostname": {"nested": true}, "kernel": null},
    "status": [1, 2],
    "findings": [5, null, {"rank": "first", "severity": 7, "title": ["t"], "subjects": "nvme0n1",
                 "evidence": {"x": 1}, "proof": null, "direction": {}, "remedy": 3},
                 {"rank": 1e300, "id": "huge-rank"}],
    "probe": {"alpha": "0.01", "unavailable": 17, "jobs": [1, "job",
      {"name": 9, "iodepth": "16", "a": [], "b": {}},
      {"name": "x qd4", "iodepth": 4, "engine": 3, "bs": -1, "rw": null,
       "a": {"iops_per_second": {"median": "fast", "min": [], "max": {}},
             "lat_ns": {"percentile": {"50.000000": "x", "bogus": 5, "99.000000": -3,
                                       "99.900000": 0, "100": 7, "nan": 5}}},
       "b": {"iops": -5, "lat_ns": {"percentile": []}},
       "iops_ratio": "0.5", "iops_ci95": [1], "p_value": {}, "verdict": 2},
      {"iodepth": 0, "a": {"iops": 1e308}, "b": {"iops": 0}},
      {"iodepth": 2, "engine": "e", "a": {"iops": 1e300}, "b": {"iops": -1e300,
       "lat_ns": {"percentile": {"1.000000": 1e-300, "99.999999999": 1e300}}}}]},
    "changes": {"kernel": "not a list", "iommu": [3, {"path": 5, "a": {"nested": [1]}}],
                "empty": []},
    "kernel_config": {"source": 3, "groups": {"name": "x"},
                      "other": {"count": "many", "by_prefix": []}}
  })");
  std::string html;
  ASSERT_NO_THROW(html = render_report_html(odd, {}));
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_NE(html.find("huge-rank"), std::string::npos);
  EXPECT_FALSE(has_non_finite(html));
  for (const Json& not_a_report : {Json(), Json::array(), Json("text"), Json(42), Json::object()}) {
    EXPECT_NO_THROW(html = render_report_html(not_a_report, {}));
    EXPECT_NE(html.find("</html>"), std::string::npos);
  }

  Json bad_text = sample_report();
  bad_text["b"]["hostname"] = std::string("stor\xff\x01name");
  EXPECT_NO_THROW(html = render_report_html(bad_text, {}));
  EXPECT_NE(html.find("stor\xEF\xBF\xBD\xEF\xBF\xBDname"), std::string::npos);
}

TEST(ReportHtml, SameReportSameBytes) {
  const Json report = sample_report();
  const std::string first = render_report_html(report, {});
  EXPECT_EQ(first, render_report_html(report, {}));
  EXPECT_EQ(first, render_report_html(Json::parse(report.dump()), {}));
}

TEST(SvgChart, EscapesAndReplacesWhatCannotBeText) {
  EXPECT_EQ(xml_escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(xml_escape("µs → ms"), "µs → ms");
  EXPECT_EQ(xml_escape("a\xff"
                       "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(xml_escape("\x01\t\n"), "\xEF\xBF\xBD\t\n");
  EXPECT_EQ(xml_escape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(xml_escape("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
}

TEST(SvgChart, TickLabelsInTheUnitsPeopleRead) {
  EXPECT_EQ(format_tick(0, TickFormat::kCount), "0");
  EXPECT_EQ(format_tick(1500, TickFormat::kCount), "1.5k");
  EXPECT_EQ(format_tick(250000, TickFormat::kCount), "250k");
  EXPECT_EQ(format_tick(2e6, TickFormat::kCount), "2M");
  EXPECT_EQ(format_tick(850, TickFormat::kNanoseconds), "850 ns");
  EXPECT_EQ(format_tick(20000, TickFormat::kNanoseconds), "20 µs");
  EXPECT_EQ(format_tick(1.5e6, TickFormat::kNanoseconds), "1.5 ms");
  EXPECT_EQ(format_tick(99.9, TickFormat::kPercentile), "p99.9");
  EXPECT_EQ(format_tick(16, TickFormat::kPlain), "16");
}

LineChart depth_chart() {
  LineChart chart;
  chart.title = "t";
  chart.x = {"iodepth", Scale::kLog2, TickFormat::kPlain};
  chart.y = {"latency", Scale::kLog10, TickFormat::kNanoseconds};
  ChartSeries a{"A <1>", "#2b6cb0", false, Marker::kCircle, 0, {}};
  ChartSeries b{"B", "#dd6b20", true, Marker::kSquare, 0, {}};
  for (const double depth : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0}) {
    a.points.push_back({depth, 50000 * std::sqrt(depth), 40000.0, 60000 * std::sqrt(depth)});
    b.points.push_back({depth, 80000 * depth, std::nullopt, std::nullopt});
  }
  chart.series = {a, b};
  return chart;
}

TEST(SvgChart, LogAxesTickAtPowers) {
  const std::string svg = render_svg_chart(depth_chart());
  for (const char* tick : {">1</text>", ">2</text>", ">128</text>", ">100 µs</text>",
                           ">1 ms</text>", ">10 ms</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(svg.find(">3</text>"), std::string::npos);
}

TEST(SvgChart, SidesDifferWithoutColour) {
  const std::string svg = render_svg_chart(depth_chart());
  // One dashed line in the plot and one in the legend: B's.
  EXPECT_EQ(count_of(svg, "stroke-dasharray"), 2u);
  EXPECT_NE(svg.find("<circle"), std::string::npos);
  EXPECT_NE(svg.find("width=\"7\" height=\"7\""), std::string::npos);
  EXPECT_NE(svg.find(">A &lt;1&gt;</text>"), std::string::npos);
  // Whiskers for A's eight points, none for B.
  EXPECT_EQ(count_of(svg, "<path d=\"M"), 8u);
}

TEST(SvgChart, UnplaceablePointsAreLeftOut) {
  LineChart chart = depth_chart();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  chart.series[0].points.push_back({nan, 1, std::nullopt, std::nullopt});
  chart.series[0].points.push_back({4, -1, std::nullopt, std::nullopt});
  chart.series[1].points.push_back({0, 1000, std::nullopt, std::nullopt});
  const std::string svg = render_svg_chart(chart);
  EXPECT_FALSE(has_non_finite(svg));
  EXPECT_EQ(svg.find("no data"), std::string::npos);

  LineChart empty;
  empty.series.push_back({"A", "#000000", false, Marker::kCircle, 0, {{nan, nan, {}, {}}}});
  const std::string blank = render_svg_chart(empty);
  EXPECT_NE(blank.find("no data"), std::string::npos);
  EXPECT_EQ(blank.find("<polyline"), std::string::npos);
}

TEST(SvgChart, SameChartSameBytes) {
  EXPECT_EQ(render_svg_chart(depth_chart()), render_svg_chart(depth_chart()));
}

}  // namespace
}  // namespace kdrift
