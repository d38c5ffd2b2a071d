#include "report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>

#include "report/text_table.h"
#include "util/text.h"

namespace kdrift {
namespace {

// Margins around the plot: the title above, tick labels and the rotated y title on the left,
// tick labels and the x title below.
constexpr double kLeft = 66;
constexpr double kRight = 18;
constexpr double kTop = 34;
constexpr double kBottom = 46;
constexpr double kLegendRow = 18;
constexpr double kLegendSwatch = 30;
// Average advance of an 11 px sans-serif glyph: legend columns are sized without measuring text,
// which a server-side renderer cannot do.
constexpr double kCharWidth = 6.4;

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

size_t code_points(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string num(double value) {
  char text[32];
  (void)std::snprintf(text, sizeof text, "%.1f", value);
  return std::string_view(text) == "-0.0" ? "0.0" : text;
}

bool placeable(Scale scale, double value) {
  if (!std::isfinite(value)) return false;
  switch (scale) {
    case Scale::kLinear:
      // Leaves room for the axis arithmetic (spans, padding) to stay finite.
      return std::abs(value) <= 1e300;
    case Scale::kLog2:
    case Scale::kLog10:
      return value > 0;
    case Scale::kNines:
      return value >= 0 && value < 100;
  }
  return false;
}

double transform(Scale scale, double value) {
  switch (scale) {
    case Scale::kLinear:
      return value;
    case Scale::kLog2:
      return std::log2(value);
    case Scale::kLog10:
      return std::log10(value);
    case Scale::kNines:
      return -std::log10(1 - value / 100);
  }
  return value;
}

// An axis in transformed units (log2 of the value on a log2 axis), with tick values as data.
struct Domain {
  double low = 0;
  double high = 1;
  std::vector<double> ticks;
};

double nice_step(double span) {
  const double raw = span / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double mantissa : {1.0, 2.0, 2.5, 5.0}) {
    if (raw <= mantissa * magnitude) return mantissa * magnitude;
  }
  return 10 * magnitude;
}

// from_zero: quantities like IOPS, whose drop reads true only against a zero baseline.
Domain linear_domain(double low, double high, bool from_zero) {
  // Values near the double range (a hand-edited report) would make the span and the tick count
  // overflow; such a chart draws an empty unit range instead.
  if (!std::isfinite(high - low) || std::abs(low) > 1e15 || std::abs(high) > 1e15) {
    low = 0;
    high = 1;
  }
  if (from_zero) {
    low = std::min(low, 0.0);
    high = std::max(high, 0.0);
  }
  if (high <= low) {
    const double pad = low == 0 ? 1 : std::abs(low) * 0.1;
    if (!from_zero || low < 0) low -= pad;
    high += pad;
  }
  const double step = nice_step(high - low);
  if (from_zero) {
    low = std::floor(low / step) * step;
    high = std::ceil(high / step) * step;
  } else {
    const double pad = (high - low) * 0.05;
    low -= pad;
    high += pad;
  }
  Domain domain{low, high, {}};
  for (auto k = static_cast<int64_t>(std::ceil(low / step - 1e-9));
       static_cast<double>(k) * step <= high + step * 1e-9; ++k) {
    domain.ticks.push_back(static_cast<double>(k) * step);
  }
  return domain;
}

// A range narrower than span widened to span around its middle, so that a flat series still
// gets an axis with ticks.
void widen_to(double& low, double& high, double span) {
  if (high - low >= span) return;
  const double middle = (low + high) / 2;
  low = middle - span / 2;
  high = middle + span / 2;
}

Domain log2_domain(double low, double high) {
  widen_to(low, high, 2);
  Domain domain{low - 0.3, high + 0.3, {}};
  const auto first = static_cast<int64_t>(std::ceil(domain.low));
  const auto last = static_cast<int64_t>(std::floor(domain.high));
  int64_t stride = 1;
  while ((last - first) / stride + 1 > 8)
    stride *= 2;
  for (int64_t k = first; k <= last; ++k) {
    if (((k % stride) + stride) % stride == 0)
      domain.ticks.push_back(std::ldexp(1.0, static_cast<int>(k)));
  }
  return domain;
}

Domain log10_domain(double low, double high) {
  widen_to(low, high, 0.3);
  const double pad = std::max(0.04 * (high - low), 0.04);
  Domain domain{low - pad, high + pad, {}};
  // The sparsest ladder that still gives three ticks: decades on wide ranges, 1-2-5 on narrow.
  static const std::array<std::vector<double>, 3> kLadders = {
      std::vector<double>{1}, std::vector<double>{1, 2, 5},
      std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}};
  for (const auto& mantissas : kLadders) {
    domain.ticks.clear();
    for (auto decade = static_cast<int64_t>(std::floor(domain.low));
         decade <= static_cast<int64_t>(std::ceil(domain.high)); ++decade) {
      for (const double mantissa : mantissas) {
        const double value = mantissa * std::pow(10.0, static_cast<double>(decade));
        const double at = std::log10(value);
        if (at >= domain.low && at <= domain.high) domain.ticks.push_back(value);
      }
    }
    if (domain.ticks.size() >= 3) break;
  }
  if (domain.ticks.size() > 9) {
    const size_t stride = (domain.ticks.size() + 7) / 8;
    std::vector<double> thinned;
    for (size_t i = 0; i < domain.ticks.size(); i += stride)
      thinned.push_back(domain.ticks[i]);
    domain.ticks = std::move(thinned);
  }
  return domain;
}

Domain nines_domain(double high) {
  Domain domain{0, std::max(high + 0.2, 1.0), {}};
  for (const double value : {50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999}) {
    if (transform(Scale::kNines, value) <= domain.high) domain.ticks.push_back(value);
  }
  return domain;
}

// values are transformed already; empty means no data, which still gets a sensible frame.
Domain domain_for(Scale scale, const std::vector<double>& values, bool from_zero) {
  if (values.empty()) {
    if (scale == Scale::kLinear) return linear_domain(0, 1, from_zero);
    if (scale == Scale::kLog2) return log2_domain(0, 3);
    if (scale == Scale::kLog10) return log10_domain(0, 3);
    return nines_domain(2);
  }
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  switch (scale) {
    case Scale::kLinear:
      return linear_domain(*low, *high, from_zero);
    case Scale::kLog2:
      return log2_domain(*low, *high);
    case Scale::kLog10:
      return log10_domain(*low, *high);
    case Scale::kNines:
      return nines_domain(*high);
  }
  return {};
}

class AxisMap {
 public:
  AxisMap(Scale scale, const Domain& domain, double from, double to)
      : scale_(scale), domain_(domain), from_(from), to_(to) {}
  double operator()(double value) const {
    const double share = (transform(scale_, value) - domain_.low) / (domain_.high - domain_.low);
    return from_ + share * (to_ - from_);
  }

 private:
  Scale scale_;
  Domain domain_;
  double from_;
  double to_;
};

std::string marker_svg(Marker marker, double x, double y) {
  switch (marker) {
    case Marker::kCircle:
      return "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"4\"/>";
    case Marker::kSquare:
      return "<rect x=\"" + num(x - 3.5) + "\" y=\"" + num(y - 3.5) +
             "\" width=\"7\" height=\"7\"/>";
    case Marker::kTriangle:
      return "<path d=\"M" + num(x) + " " + num(y - 5) + "L" + num(x + 4.8) + " " + num(y + 3.5) +
             "L" + num(x - 4.8) + " " + num(y + 3.5) + "Z\"/>";
    case Marker::kDiamond:
      return "<path d=\"M" + num(x) + " " + num(y - 5) + "L" + num(x + 5) + " " + num(y) + "L" +
             num(x) + " " + num(y + 5) + "L" + num(x - 5) + " " + num(y) + "Z\"/>";
  }
  return {};
}

std::string stroke_style(const ChartSeries& series) {
  return "stroke=\"" + xml_escape(series.colour) + "\"" +
         (series.dashed ? " stroke-dasharray=\"7 4\"" : "");
}

bool placed(const LineChart& chart, const ChartPoint& point) {
  return placeable(chart.x.scale, point.x) && placeable(chart.y.scale, point.y);
}

bool has_whisker(const LineChart& chart, const ChartPoint& point) {
  return point.low && point.high && placeable(chart.y.scale, *point.low) &&
         placeable(chart.y.scale, *point.high);
}

// Where everything goes: the series with a point to draw, the plot area, the axes mapped onto
// it and the legend's grid below.
struct Plot {
  std::vector<const ChartSeries*> drawn;
  double width = 0;
  double height = 0;
  double left = kLeft;
  double right = 0;
  double top = kTop;
  double bottom = 0;
  Domain x_domain;
  Domain y_domain;
  std::optional<AxisMap> x_at;
  std::optional<AxisMap> y_at;
  double column_width = 0;
  int columns = 1;
  int rows = 0;
  double total_height = 0;
};

void plan_legend(const LineChart& chart, Plot& plot) {
  for (const auto* series : plot.drawn) {
    plot.column_width = std::max(
        plot.column_width,
        kLegendSwatch + 8 + kCharWidth * static_cast<double>(code_points(series->name)) + 18);
  }
  const int fitting =
      std::max(1, static_cast<int>((plot.width - plot.left) / std::max(plot.column_width, 1.0)));
  plot.columns = chart.legend_columns > 0 ? std::min(chart.legend_columns, fitting) : fitting;
  plot.rows = plot.drawn.empty()
                  ? 0
                  : (static_cast<int>(plot.drawn.size()) + plot.columns - 1) / plot.columns;
  plot.total_height = plot.height + (plot.rows > 0 ? plot.rows * kLegendRow + 6 : 0);
}

Plot plan_plot(const LineChart& chart) {
  Plot plot;
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& series : chart.series) {
    bool any = false;
    for (const auto& point : series.points) {
      if (!placed(chart, point)) continue;
      any = true;
      xs.push_back(transform(chart.x.scale, point.x));
      ys.push_back(transform(chart.y.scale, point.y));
      if (has_whisker(chart, point)) {
        ys.push_back(transform(chart.y.scale, *point.low));
        ys.push_back(transform(chart.y.scale, *point.high));
      }
    }
    if (any) plot.drawn.push_back(&series);
  }
  plot.width = std::max(chart.width, 200);
  plot.height = std::max(chart.height, 160);
  plot.right = plot.width - kRight;
  plot.bottom = plot.height - kBottom;
  plot.x_domain = domain_for(chart.x.scale, xs, false);
  plot.y_domain = domain_for(chart.y.scale, ys, true);
  plot.x_at.emplace(chart.x.scale, plot.x_domain, plot.left, plot.right);
  plot.y_at.emplace(chart.y.scale, plot.y_domain, plot.bottom, plot.top);
  plan_legend(chart, plot);
  return plot;
}

std::string svg_header(const LineChart& chart, const Plot& plot) {
  const std::string title = xml_escape(chart.title);
  const std::string width = num(plot.width);
  const std::string height = num(plot.total_height);
  std::string out = "<svg class=\"chart\" width=\"" + width + "\" height=\"" + height +
                    "\" viewBox=\"0 0 " + width + " " + height + "\" role=\"img\" aria-label=\"" +
                    title + "\" font-family=\"sans-serif\">\n<title>" + title + "</title>\n";
  // Opaque, so that a chart copied out of the page or screenshotted on a dark theme stays legible.
  out += "<rect width=\"" + width + "\" height=\"" + height + "\" fill=\"#ffffff\"/>\n";
  out += "<text x=\"" + num(plot.left) + "\" y=\"20\" font-size=\"13\" font-weight=\"bold\" " +
         "fill=\"#1d2430\">" + title + "</text>\n";
  return out;
}

std::string grid(const Plot& plot) {
  std::string out = "<g stroke=\"#e4e8ee\" stroke-width=\"1\">\n";
  for (const double tick : plot.y_domain.ticks) {
    const std::string y = num((*plot.y_at)(tick));
    out += "<line x1=\"" + num(plot.left) + "\" y1=\"" + y + "\" x2=\"" + num(plot.right) +
           "\" y2=\"" + y + "\"/>\n";
  }
  for (const double tick : plot.x_domain.ticks) {
    const std::string x = num((*plot.x_at)(tick));
    out += "<line x1=\"" + x + "\" y1=\"" + num(plot.top) + "\" x2=\"" + x + "\" y2=\"" +
           num(plot.bottom) + "\"/>\n";
  }
  out += "</g>\n<rect x=\"" + num(plot.left) + "\" y=\"" + num(plot.top) + "\" width=\"" +
         num(plot.right - plot.left) + "\" height=\"" + num(plot.bottom - plot.top) +
         "\" fill=\"none\" stroke=\"#8d97a3\"/>\n";
  return out;
}

std::string axis_labels(const LineChart& chart, const Plot& plot) {
  std::string out = "<g font-size=\"11\" fill=\"#4a5563\">\n";
  for (const double tick : plot.y_domain.ticks) {
    out += "<text x=\"" + num(plot.left - 6) + "\" y=\"" + num((*plot.y_at)(tick) + 4) +
           "\" text-anchor=\"end\">" + xml_escape(format_tick(tick, chart.y.format)) + "</text>\n";
  }
  for (const double tick : plot.x_domain.ticks) {
    out += "<text x=\"" + num((*plot.x_at)(tick)) + "\" y=\"" + num(plot.bottom + 16) +
           "\" text-anchor=\"middle\">" + xml_escape(format_tick(tick, chart.x.format)) +
           "</text>\n";
  }
  out += "</g>\n<g font-size=\"12\" fill=\"#1d2430\" text-anchor=\"middle\">\n";
  out += "<text x=\"" + num((plot.left + plot.right) / 2) + "\" y=\"" + num(plot.bottom + 36) +
         "\">" + xml_escape(chart.x.title) + "</text>\n";
  const std::string y_middle = num((plot.top + plot.bottom) / 2);
  out += "<text x=\"16\" y=\"" + y_middle + "\" transform=\"rotate(-90 16 " + y_middle + ")\">" +
         xml_escape(chart.y.title) + "</text>\n</g>\n";
  return out;
}

std::string whiskers_svg(const LineChart& chart, const Plot& plot, const ChartSeries& series,
                         const std::vector<ChartPoint>& points) {
  std::string whiskers;
  for (const auto& point : points) {
    if (!has_whisker(chart, point)) continue;
    const double x = (*plot.x_at)(point.x) + series.dodge;
    const std::string low = num((*plot.y_at)(*point.low));
    const std::string high = num((*plot.y_at)(*point.high));
    whiskers += "<path d=\"M" + num(x) + " " + low + "V" + high + "M" + num(x - 4) + " " + low +
                "H" + num(x + 4) + "M" + num(x - 4) + " " + high + "H" + num(x + 4) + "\"/>\n";
  }
  if (whiskers.empty()) return "";
  return "<g stroke=\"" + xml_escape(series.colour) + "\" stroke-width=\"1.3\" fill=\"none\">\n" +
         whiskers + "</g>\n";
}

std::string series_svg(const LineChart& chart, const Plot& plot, const ChartSeries& series) {
  std::vector<ChartPoint> points;
  std::copy_if(series.points.begin(), series.points.end(), std::back_inserter(points),
               [&](const ChartPoint& point) { return placed(chart, point); });
  std::stable_sort(points.begin(), points.end(),
                   [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
  std::string out = "<g>\n" + whiskers_svg(chart, plot, series, points);
  std::string line;
  for (const auto& point : points) {
    line += (line.empty() ? "" : " ") + num((*plot.x_at)(point.x) + series.dodge) + "," +
            num((*plot.y_at)(point.y));
  }
  out += "<polyline points=\"" + line + "\" fill=\"none\" stroke-width=\"2\" " +
         stroke_style(series) + "/>\n";
  out += "<g fill=\"" + xml_escape(series.colour) + "\" stroke=\"#ffffff\" stroke-width=\"1\">\n";
  for (const auto& point : points) {
    out += marker_svg(series.marker, (*plot.x_at)(point.x) + series.dodge, (*plot.y_at)(point.y)) +
           "\n";
  }
  return out + "</g>\n</g>\n";
}

std::string legend(const Plot& plot) {
  if (plot.rows == 0) return "";
  std::string out = "<g font-size=\"11\" fill=\"#1d2430\">\n";
  for (size_t i = 0; i < plot.drawn.size(); ++i) {
    const ChartSeries& series = *plot.drawn[i];
    const int column = static_cast<int>(i) % plot.columns;
    const int row = static_cast<int>(i) / plot.columns;
    const double x = plot.left + static_cast<double>(column) * plot.column_width;
    const double y = plot.height + 2 + static_cast<double>(row) * kLegendRow + kLegendRow / 2;
    out += "<line x1=\"" + num(x) + "\" y1=\"" + num(y) + "\" x2=\"" + num(x + kLegendSwatch) +
           "\" y2=\"" + num(y) + "\" stroke-width=\"2\" " + stroke_style(series) + "/>\n";
    out += "<g fill=\"" + xml_escape(series.colour) + "\" stroke=\"#ffffff\">" +
           marker_svg(series.marker, x + kLegendSwatch / 2, y) + "</g>\n";
    out += "<text x=\"" + num(x + kLegendSwatch + 8) + "\" y=\"" + num(y + 4) + "\">" +
           xml_escape(series.name) + "</text>\n";
  }
  return out + "</g>\n";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const size_t length = utf8_text_length(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    ++i;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
            c == 0x7F) {
          out += kReplacement;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string format_tick(double value, TickFormat format) {
  const double magnitude = std::abs(value);
  switch (format) {
    case TickFormat::kPlain:
      return trimmed(value);
    case TickFormat::kCount:
      return count_text(value, CountStyle::kTick);
    case TickFormat::kNanoseconds:
      if (magnitude >= 1e9) return trimmed(value / 1e9) + " s";
      if (magnitude >= 1e6) return trimmed(value / 1e6) + " ms";
      if (magnitude >= 1e3) return trimmed(value / 1e3) + " µs";
      return trimmed(value) + " ns";
    case TickFormat::kPercentile: {
      char text[32];
      (void)std::snprintf(text, sizeof text, "p%.6g", value);
      return text;
    }
  }
  return trimmed(value);
}

std::string render_svg_chart(const LineChart& chart) {
  const Plot plot = plan_plot(chart);
  std::string out = svg_header(chart, plot);
  out += grid(plot);
  out += axis_labels(chart, plot);
  if (plot.drawn.empty()) {
    out += "<text x=\"" + num((plot.left + plot.right) / 2) + "\" y=\"" +
           num((plot.top + plot.bottom) / 2) +
           "\" font-size=\"12\" fill=\"#8d97a3\" text-anchor=\"middle\">no data</text>\n";
  }
  for (const auto* series : plot.drawn)
    out += series_svg(chart, plot, *series);
  out += legend(plot);
  out += "</svg>\n";
  return out;
}

}  // namespace kdrift
