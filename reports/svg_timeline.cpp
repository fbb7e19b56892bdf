// SPDX-License-Identifier: Apache-2.0
#include "reports/svg_timeline.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "reports/svg_charts.h"
#include "reports/units.h"

namespace nw::report {

namespace {

std::string color_of(const std::string& source, const std::vector<std::string>& series) {
  auto it = std::find(series.begin(), series.end(), source);
  return series_color(it != series.end() ? size_t(it - series.begin()) : series.size(),
                      it != series.end() ? source : "other");
}

// What the events of a span were, for its tooltip: "preemption:nw_hog 3 (12.1 ms), ...".
std::string events_text(const TimelineSpan& s) {
  std::vector<std::pair<std::string, TimelineCount>> v(s.events.begin(), s.events.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.time_ns > b.second.time_ns; });
  std::string t;
  for (size_t i = 0; i < v.size() && i < 6; ++i)
    t += fmt::format("{}{} ×{} ({})", i ? ", " : "", v[i].first, v[i].second.count,
                     format_duration(double(v[i].second.time_ns)));
  if (v.size() > 6) t += fmt::format(", and {} more", v.size() - 6);
  return t.empty() ? "no event above the threshold" : t;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> timeline_legend(const TimelineSummary& t,
                                                                 const std::vector<std::string>& series) {
  std::set<std::string> seen;
  for (const auto& m : t.marks) seen.insert(m.source);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : series)
    if (seen.erase(s)) out.emplace_back(s, color_of(s, series));
  if (!seen.empty()) out.emplace_back("other", color_of("other", series));
  return out;
}

std::string timeline_svg(const TimelineSummary& t, const std::vector<std::string>& series) {
  std::vector<int> runs;
  for (const auto& s : t.spans)
    if (!s.window && std::find(runs.begin(), runs.end(), s.process_run) == runs.end()) runs.push_back(s.process_run);
  std::sort(runs.begin(), runs.end());
  const size_t shown = std::min(runs.size(), kTimelineRows);
  std::map<int, size_t> row_of;
  for (size_t i = 0; i < shown; ++i) row_of[runs[i]] = i;
  double span_max = 1;
  for (const auto& s : t.spans)
    if (row_of.count(s.process_run)) span_max = std::max(span_max, double(s.end_ns));

  const double left = 96, right = 12, top = 8, row_h = 22, band_h = 16, width = 760;
  const double axis_y = top + row_h * double(shown) + 2, height = axis_y + 34 + (runs.size() > shown ? 16 : 0);
  const double pw = width - left - right;
  auto x = [&](double ns) { return left + std::clamp(ns / span_max, 0.0, 1.0) * pw; };
  auto row_y = [&](int pr) { return top + row_h * double(row_of[pr]); };
  std::string s = fmt::format(
      "<svg id=\"chart-timeline\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1:.0f}\" role=\"img\" aria-label=\"Timeline: the noise events above {2} in each process "
      "run and its windows\">\n",
      width, height, escape_xml(format_duration(double(t.threshold_ns))));
  for (size_t i = 0; i < shown; ++i)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">process run {}</text>\n",
                     left - 6, top + row_h * double(i) + band_h - 3, runs[i]);
  // Bands: the process run, then its windows on top (alternating shades, so neighbours part).
  for (const auto& sp : t.spans) {
    if (!row_of.count(sp.process_run)) continue;
    double x0 = x(double(sp.start_ns)), x1 = std::max(x(double(sp.end_ns)), x0 + 1);
    std::string what = sp.window ? fmt::format("window {}", *sp.window) : fmt::format("process run {}", sp.process_run);
    if (sp.run) what += fmt::format(" (runs[{}])", *sp.run);
    if (sp.warmup) what += ", warm-up";
    const char* fill = !sp.window ? "#f2f2f2" : *sp.window % 2 ? "#dde6f3" : "#c9d6ea";
    s += fmt::format(
        "<rect class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>{}: {} long; {}</title></rect>\n",
        sp.window ? "window" : "process-run", x0, row_y(sp.process_run), x1 - x0, band_h, fill, escape_xml(what),
        escape_xml(format_duration(double(sp.end_ns - std::min(sp.end_ns, sp.start_ns)))), escape_xml(events_text(sp)));
  }
  for (const auto& m : t.marks) {
    if (!row_of.count(m.process_run)) continue;
    double x0 = x(double(m.at_ns)), w = std::max(1.5, x(double(m.at_ns + m.dur_ns)) - x0);
    s += fmt::format(
        "<rect class=\"event\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>{} on CPU {}: {} at {}</title></rect>\n",
        x0, row_y(m.process_run) + 2, w, band_h - 4, color_of(m.source, series), escape_xml(m.source), m.cpu,
        escape_xml(format_duration(double(m.dur_ns))), escape_xml(format_duration(double(m.at_ns))));
  }
  s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" class=\"axis\"/>\n", left,
                   left + pw, axis_y);
  for (int k = 0; k <= 4; ++k) {
    double v = span_max * k / 4;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n", x(v),
                     axis_y + 14, escape_xml(format_duration(v)));
  }
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" text-anchor=\"middle\">time since the process "
      "run's start</text>\n",
      left + pw / 2, axis_y + 30);
  if (runs.size() > shown)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\">the first {} of {} process runs</text>\n", left,
                     axis_y + 46, shown, runs.size());
  return s + "</svg>\n";
}

}  // namespace nw::report
