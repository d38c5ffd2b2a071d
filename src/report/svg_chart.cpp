#include "report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>

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

Domain log2_domain(double low, double high) {
  if (high - low < 2) {
    const double middle = (low + high) / 2;
    low = middle - 1;
    high = middle + 1;
  }
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
  if (high - low < 0.3) {
    const double middle = (low + high) / 2;
    low = middle - 0.15;
    high = middle + 0.15;
  }
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
  const auto placed = [&](const ChartPoint& point) {
    return placeable(chart.x.scale, point.x) && placeable(chart.y.scale, point.y);
  };
  const auto has_whisker = [&](const ChartPoint& point) {
    return point.low && point.high && placeable(chart.y.scale, *point.low) &&
           placeable(chart.y.scale, *point.high);
  };

  std::vector<double> xs;
  std::vector<double> ys;
  std::vector<const ChartSeries*> drawn;
  for (const auto& series : chart.series) {
    bool any = false;
    for (const auto& point : series.points) {
      if (!placed(point)) continue;
      any = true;
      xs.push_back(transform(chart.x.scale, point.x));
      ys.push_back(transform(chart.y.scale, point.y));
      if (has_whisker(point)) {
        ys.push_back(transform(chart.y.scale, *point.low));
        ys.push_back(transform(chart.y.scale, *point.high));
      }
    }
    if (any) drawn.push_back(&series);
  }

  const double width = std::max(chart.width, 200);
  const double height = std::max(chart.height, 160);
  const double left = kLeft;
  const double right = width - kRight;
  const double top = kTop;
  const double bottom = height - kBottom;
  const Domain x_domain = domain_for(chart.x.scale, xs, false);
  const Domain y_domain = domain_for(chart.y.scale, ys, true);
  const AxisMap x_at(chart.x.scale, x_domain, left, right);
  const AxisMap y_at(chart.y.scale, y_domain, bottom, top);

  double column_width = 0;
  for (const auto* series : drawn) {
    column_width = std::max(
        column_width,
        kLegendSwatch + 8 + kCharWidth * static_cast<double>(code_points(series->name)) + 18);
  }
  const int fitting = std::max(1, static_cast<int>((width - left) / std::max(column_width, 1.0)));
  const int columns = chart.legend_columns > 0 ? std::min(chart.legend_columns, fitting) : fitting;
  const int rows = drawn.empty() ? 0 : (static_cast<int>(drawn.size()) + columns - 1) / columns;
  const double total_height = height + (rows > 0 ? rows * kLegendRow + 6 : 0);

  const std::string title = xml_escape(chart.title);
  std::string out = "<svg class=\"chart\" width=\"" + num(width) + "\" height=\"" +
                    num(total_height) + "\" viewBox=\"0 0 " + num(width) + " " + num(total_height) +
                    "\" role=\"img\" aria-label=\"" + title +
                    "\" font-family=\"sans-serif\">\n<title>" + title + "</title>\n";
  // Opaque, so that a chart copied out of the page or screenshotted on a dark theme stays legible.
  out += "<rect width=\"" + num(width) + "\" height=\"" + num(total_height) +
         "\" fill=\"#ffffff\"/>\n";
  out += "<text x=\"" + num(left) + "\" y=\"20\" font-size=\"13\" font-weight=\"bold\" " +
         "fill=\"#1d2430\">" + title + "</text>\n";

  out += "<g stroke=\"#e4e8ee\" stroke-width=\"1\">\n";
  for (const double tick : y_domain.ticks) {
    const std::string y = num(y_at(tick));
    out += "<line x1=\"" + num(left) + "\" y1=\"" + y + "\" x2=\"" + num(right) + "\" y2=\"" + y +
           "\"/>\n";
  }
  for (const double tick : x_domain.ticks) {
    const std::string x = num(x_at(tick));
    out += "<line x1=\"" + x + "\" y1=\"" + num(top) + "\" x2=\"" + x + "\" y2=\"" + num(bottom) +
           "\"/>\n";
  }
  out += "</g>\n<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(right - left) +
         "\" height=\"" + num(bottom - top) + "\" fill=\"none\" stroke=\"#8d97a3\"/>\n";

  out += "<g font-size=\"11\" fill=\"#4a5563\">\n";
  for (const double tick : y_domain.ticks) {
    out += "<text x=\"" + num(left - 6) + "\" y=\"" + num(y_at(tick) + 4) +
           "\" text-anchor=\"end\">" + xml_escape(format_tick(tick, chart.y.format)) + "</text>\n";
  }
  for (const double tick : x_domain.ticks) {
    out += "<text x=\"" + num(x_at(tick)) + "\" y=\"" + num(bottom + 16) +
           "\" text-anchor=\"middle\">" + xml_escape(format_tick(tick, chart.x.format)) +
           "</text>\n";
  }
  out += "</g>\n<g font-size=\"12\" fill=\"#1d2430\" text-anchor=\"middle\">\n";
  out += "<text x=\"" + num((left + right) / 2) + "\" y=\"" + num(bottom + 36) + "\">" +
         xml_escape(chart.x.title) + "</text>\n";
  const std::string y_middle = num((top + bottom) / 2);
  out += "<text x=\"16\" y=\"" + y_middle + "\" transform=\"rotate(-90 16 " + y_middle + ")\">" +
         xml_escape(chart.y.title) + "</text>\n</g>\n";

  if (drawn.empty()) {
    out += "<text x=\"" + num((left + right) / 2) + "\" y=\"" + y_middle +
           "\" font-size=\"12\" fill=\"#8d97a3\" text-anchor=\"middle\">no data</text>\n";
  }

  for (const auto* series : drawn) {
    std::vector<ChartPoint> points;
    std::copy_if(series->points.begin(), series->points.end(), std::back_inserter(points), placed);
    std::stable_sort(points.begin(), points.end(),
                     [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    const std::string colour = xml_escape(series->colour);
    out += "<g>\n";
    std::string whiskers;
    for (const auto& point : points) {
      if (!has_whisker(point)) continue;
      const double x = x_at(point.x) + series->dodge;
      const std::string low = num(y_at(*point.low));
      const std::string high = num(y_at(*point.high));
      whiskers += "<path d=\"M" + num(x) + " " + low + "V" + high + "M" + num(x - 4) + " " + low +
                  "H" + num(x + 4) + "M" + num(x - 4) + " " + high + "H" + num(x + 4) + "\"/>\n";
    }
    if (!whiskers.empty()) {
      out += "<g stroke=\"" + colour + "\" stroke-width=\"1.3\" fill=\"none\">\n" + whiskers +
             "</g>\n";
    }
    std::string line;
    for (const auto& point : points) {
      line +=
          (line.empty() ? "" : " ") + num(x_at(point.x) + series->dodge) + "," + num(y_at(point.y));
    }
    out += "<polyline points=\"" + line + "\" fill=\"none\" stroke-width=\"2\" " +
           stroke_style(*series) + "/>\n";
    out += "<g fill=\"" + colour + "\" stroke=\"#ffffff\" stroke-width=\"1\">\n";
    for (const auto& point : points) {
      out += marker_svg(series->marker, x_at(point.x) + series->dodge, y_at(point.y)) + "\n";
    }
    out += "</g>\n</g>\n";
  }

  if (rows > 0) {
    out += "<g font-size=\"11\" fill=\"#1d2430\">\n";
    for (size_t i = 0; i < drawn.size(); ++i) {
      const ChartSeries& series = *drawn[i];
      const int column = static_cast<int>(i) % columns;
      const int row = static_cast<int>(i) / columns;
      const double x = left + static_cast<double>(column) * column_width;
      const double y = height + 2 + static_cast<double>(row) * kLegendRow + kLegendRow / 2;
      out += "<line x1=\"" + num(x) + "\" y1=\"" + num(y) + "\" x2=\"" + num(x + kLegendSwatch) +
             "\" y2=\"" + num(y) + "\" stroke-width=\"2\" " + stroke_style(series) + "/>\n";
      out += "<g fill=\"" + xml_escape(series.colour) + "\" stroke=\"#ffffff\">" +
             marker_svg(series.marker, x + kLegendSwatch / 2, y) + "</g>\n";
      out += "<text x=\"" + num(x + kLegendSwatch + 8) + "\" y=\"" + num(y + 4) + "\">" +
             xml_escape(series.name) + "</text>\n";
    }
    out += "</g>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace kdrift
