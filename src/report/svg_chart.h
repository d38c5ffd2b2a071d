#pragma once
// XY line charts as inline SVG for the html report: named series with optional min/max whiskers,
// linear or logarithmic axes with tick labels in the units storage engineers read (k/M IOPS,
// µs/ms latency), axis titles and a legend. The output is meant to sit inside an HTML5 page, whose
// parser supplies the SVG namespace, so it carries no xmlns URL. Same chart, same bytes.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdrift {

// Text for HTML or XML content and attribute values. Report strings come from snapshots of
// arbitrary hosts: invalid UTF-8 and control characters become U+FFFD rather than reaching the
// page.
std::string xml_escape(std::string_view text);

enum class Scale {
  kLinear,
  kLog2,
  kLog10,
  // Percentiles 0..100 spaced by their nines (90, 99, 99.9, ... equally apart), so that a
  // latency distribution's tail gets as much room as its body.
  kNines,
};

enum class TickFormat {
  kPlain,
  kCount,        // 1500 -> "1.5k", 2000000 -> "2M"
  kNanoseconds,  // 850 -> "850 ns", 20000 -> "20 µs", 1500000 -> "1.5 ms"
  kPercentile,   // 99.9 -> "p99.9"
};

std::string format_tick(double value, TickFormat format);

struct ChartAxis {
  std::string title;
  Scale scale = Scale::kLinear;
  TickFormat format = TickFormat::kPlain;
};

enum class Marker { kCircle, kSquare, kTriangle, kDiamond };

struct ChartPoint {
  double x = 0;
  double y = 0;
  // A whisker from low to high is drawn through the point when both are set.
  std::optional<double> low;
  std::optional<double> high;
};

struct ChartSeries {
  std::string name;
  std::string colour;  // any CSS colour, e.g. "#2b6cb0"
  // Dashes and marker shapes keep series apart in greyscale prints and for colour-blind readers.
  bool dashed = false;
  Marker marker = Marker::kCircle;
  // Pixels the whole series is moved sideways, so that whiskers of two series at the same x stay
  // visible side by side.
  double dodge = 0;
  std::vector<ChartPoint> points;
};

struct LineChart {
  std::string title;
  ChartAxis x;
  ChartAxis y;
  std::vector<ChartSeries> series;
  // Legend entries per row below the plot; 0 fits as many as the width allows. Setting it to the
  // number of series per side puts A's entries on one row and B's on the next.
  int legend_columns = 0;
  // Size of title, plot and axes; the legend adds its rows below.
  int width = 420;
  int height = 300;
};

// Points that cannot be placed (not finite, or not positive on a log axis) are left out; a chart
// with nothing to place says "no data" rather than failing.
std::string render_svg_chart(const LineChart& chart);

}  // namespace kdrift
