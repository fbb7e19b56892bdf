// SPDX-License-Identifier: Apache-2.0
#include "reports/svg_charts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/units.h"

namespace nw::report {

namespace {

constexpr const char* kPalette[] = {"#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"};
constexpr const char* kOther = "#bcbd22";
constexpr const char* kWall = "#9e9e9e";
constexpr const char* kUnexplained = "#c7c7c7";
constexpr size_t kShareRows = 12;

}  // namespace

std::string escape_xml(const std::string& s) {
  std::string out;
  for (char c : s) {
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
        out += c;
    }
  }
  return out;
}

std::string series_color(size_t i, const std::string& name) {
  if (name == "other") return kOther;
  if (name == "unexplained") return kUnexplained;
  return kPalette[i % std::size(kPalette)];
}

std::string runs_chart_svg(const ReportModel& m) {
  const double left = 78, right = 12, top = 16, bottom = 36, width = 760, height = 280;
  const double pw = width - left - right, ph = height - top - bottom;
  const size_t n = m.runs.size();
  double ymax = 0;
  for (const auto& r : m.runs) {
    double stolen = 0;
    for (double v : r.stolen_ns) stolen += v;
    ymax = std::max({ymax, stolen, r.wall_ns - m.baseline_ns});
  }
  if (ymax <= 0) ymax = 1;
  auto y = [&](double v) { return top + ph - v / ymax * ph; };
  std::string s = fmt::format(
      "<svg id=\"chart-runs{2}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"Stolen time by source per run, next to each run's extra "
      "wall time\">\n",
      width, height, m.html_id);
  for (int t = 0; t <= 4; ++t) {
    double v = ymax * t / 4;
    s += fmt::format(
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n",
        left, left + pw, y(v), y(v), left - 6, y(v) + 4, escape_xml(format_duration(v)));
  }
  const double group = n ? pw / double(n) : pw;
  const double bar = std::max(1.0, group * 0.38);
  const size_t label_every = std::max<size_t>(1, (n + 24) / 25);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = m.runs[i];
    double x0 = left + group * double(i) + group * 0.08;
    double excess = r.wall_ns - m.baseline_ns;
    const std::string named = r.label.empty() ? "" : " (" + escape_xml(r.label) + ")";
    s += fmt::format(
        "<rect class=\"wall\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>run {}{}: wall {} (+{} over the undisturbed time)</title></rect>\n",
        x0, y(excess), bar, y(0) - y(excess), kWall, r.run, named, escape_xml(format_duration(r.wall_ns)),
        escape_xml(format_duration(excess)));
    double base = 0;
    for (size_t k = 0; k < r.stolen_ns.size(); ++k) {
      double v = r.stolen_ns[k];
      if (v <= 0) continue;
      s += fmt::format(
          "<rect class=\"stolen\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>run {}{}: {} {}</title></rect>\n",
          x0 + bar, y(base + v), bar, y(base) - y(base + v), series_color(k, m.chart_series[k]), r.run, named,
          escape_xml(m.chart_series[k]), escape_xml(format_duration(v)));
      base += v;
    }
    if (i % label_every == 0)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick{}\" text-anchor=\"middle\">{}{}</text>\n",
                       x0 + bar, top + ph + 16, r.outlier ? " outlier" : "", r.run, r.outlier ? "*" : "");
  }
  s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" class=\"axis\"/>\n", left,
                   left + pw, y(0));
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" text-anchor=\"middle\">run (* outlier)</text>\n",
                   left + pw / 2, height - 4);
  return s + "</svg>\n";
}

std::string shares_chart_svg(const ReportModel& m) {
  const size_t rows = std::min(m.sources.size(), kShareRows);
  const double label = 230, right = 60, top = 10, row_h = 24, width = 760;
  const double height = top + row_h * double(rows) + 30, pw = width - label - right;
  double lo = 0, hi = 0.05;
  for (size_t i = 0; i < rows; ++i) {
    const auto& r = m.sources[i];
    lo = std::min({lo, r.share, r.share_low.value_or(0)});
    hi = std::max({hi, r.share, r.share_high.value_or(0)});
  }
  lo = std::max(lo, -1.0);
  hi = std::min(hi, 1.5);
  auto x = [&](double v) { return label + (std::clamp(v, lo, hi) - lo) / (hi - lo) * pw; };
  std::string s = fmt::format(
      "<svg id=\"chart-shares{2}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"Share of the run-to-run variance per source\">\n",
      width, height, m.html_id);
  // Colours follow the runs chart: the same source has the same colour.
  for (size_t i = 0; i < rows; ++i) {
    const auto& r = m.sources[i];
    auto it = std::find(m.chart_series.begin(), m.chart_series.end(), r.source);
    std::string color = it != m.chart_series.end()  ? series_color(size_t(it - m.chart_series.begin()), r.source)
                        : r.source == "unexplained" ? kUnexplained
                                                    : kOther;
    double yc = top + row_h * double(i) + row_h / 2;
    double a = x(std::min(0.0, r.share)), b = x(std::max(0.0, r.share));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n", label - 8,
                     yc + 4, escape_xml(r.source));
    s += fmt::format(
        "<rect class=\"share\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>{}: {} of the variance</title></rect>\n",
        a, yc - 8, std::max(0.5, b - a), 16.0, color, escape_xml(r.source), escape_xml(format_share(r.share)));
    if (r.share_low && r.share_high)
      s += fmt::format("<line class=\"whisker\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                       x(*r.share_low), x(*r.share_high), yc, yc);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n",
                     std::max(b, r.share_high ? x(*r.share_high) : b) + 6, yc + 4, escape_xml(format_share(r.share)));
  }
  double axis_y = top + row_h * double(rows) + 4;
  s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" class=\"axis\"/>\n", x(0), top,
                   axis_y);
  for (double t : {0.0, 0.25, 0.5, 0.75, 1.0})
    if (t >= lo && t <= hi)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n", x(t),
                       axis_y + 16, escape_xml(format_share(t)));
  return s + "</svg>\n";
}

}  // namespace nw::report
