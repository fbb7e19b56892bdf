// SPDX-License-Identifier: Apache-2.0
// One self-contained HTML file: inline CSS, inline SVG charts, no external resources.
#include <cctype>

#include <fmt/format.h>

#include "reports/labels.h"
#include "reports/model.h"
#include "reports/svg_charts.h"
#include "reports/svg_timeline.h"
#include "reports/units.h"

namespace nw::report {

namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 62em; color: #222; }
h1 { font-size: 1.3em; margin-bottom: .2em; } h1 code { font-size: .9em; }
.headline { font-size: 1.15em; font-weight: 600; margin: .6em 0 1em; }
.meta { color: #666; }
table { border-collapse: collapse; margin: .6em 0 1.2em; }
th, td { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.warn li { color: #8a5a00; }
pre { background: #f4f4f4; padding: .5em .8em; overflow-x: auto; }
.legend span { display: inline-block; margin-right: 1.2em; }
.legend i { display: inline-block; width: .9em; height: .9em; margin-right: .35em; vertical-align: -1px; }
svg.chart { display: block; margin: .5em 0 1em; }
svg .grid { stroke: #eee; } svg .axis { stroke: #555; } svg .whisker { stroke: #222; stroke-width: 1.5; }
svg .tick { font-size: 11px; fill: #444; } svg .label { font-size: 12px; fill: #444; }
svg .outlier { fill: #d62728; font-weight: bold; }
)";

// Lets automated checks (and curious users) see that the charts were laid out by the browser:
// it writes each chart's rendered size into a data attribute on <html>. Nothing else depends on it.
constexpr const char* kLayoutProbe = R"(
<script>
addEventListener('load', () => {
  const sizes = [...document.querySelectorAll('svg.chart')].map(s => {
    const b = s.getBBox();
    return s.id + ':' + Math.round(b.width) + 'x' + Math.round(b.height) + ':' + s.querySelectorAll('rect').length;
  });
  document.documentElement.dataset.charts = sizes.join(' ');
});
</script>
)";

std::string esc(const std::string& s) { return escape_xml(s); }

std::string warnings(const ReportModel& m, const std::string& hn = "h2") {
  if (m.warnings.empty()) return {};
  std::string h = "<" + hn + ">Warnings</" + hn + ">\n<ul class=\"warn\">\n";
  for (const auto& w : m.warnings) h += "<li>" + esc(w) + "</li>\n";
  return h + "</ul>\n";
}

std::string timeline_section(const TimelineSummary& t, const std::vector<std::string>& series) {
  std::string h = "<h2>Timeline</h2>\n<p class=\"meta\">" +
                  esc(fmt::format("{} noise events of at least {}{}; the longest are drawn where they struck. The "
                                  "full trace: {} (Perfetto UI, chrome://tracing).",
                                  t.events, format_duration(double(t.threshold_ns)),
                                  t.dropped() ? fmt::format(", {} dropped", t.dropped()) : "", t.file)) +
                  "</p>\n<p class=\"legend\">";
  for (const auto& [name, color] : timeline_legend(t, series))
    h += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", color, esc(name));
  return h + "</p>\n" + timeline_svg(t, series);
}

std::string summary_table(const ReportModel& m) {
  std::string h;
  const auto& s = m.summary;
  h += "<table class=\"summary\"><tr><th>runs</th><th>mean</th><th>median</th><th>min</th><th>max</th><th>stddev</th>"
       "<th>CV</th></tr>\n";
  h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>\n",
                   s.runs, esc(format_duration(s.mean_ns)), esc(format_duration(s.median_ns)),
                   esc(format_duration(s.min_ns)), esc(format_duration(s.max_ns)), esc(format_duration(s.stddev_ns)),
                   esc(format_percent(s.cv, 2)));
  return h;
}

std::string label_table(const ReportModel& m) {
  std::string h;
  if (!m.labels.empty()) {
    const std::string& u = m.label_unit;
    h += fmt::format(
        "<h2>{}{}s by label</h2>\n<table class=\"labels\"><tr><th>label</th><th>{}s</th><th>median</th>"
        "<th>CV</th><th>stolen/{}</th></tr>\n",
        char(std::toupper(u[0])), u.substr(1), u, u);
    for (const auto& r : m.labels)
      h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(shown_label(r.label)),
                       r.windows, esc(format_duration(r.median_ns)), esc(format_percent(r.cv, 2)),
                       esc(format_duration(r.mean_stolen_ns)));
    h += "</table>\n";
  }

  return h;
}

// The charts and the table of one set of repetitions (`hn`: its sections' heading level).
std::string charts_and_sources(const ReportModel& m, const std::string& hn) {
  std::string h;
  h += "<" + hn + ">Stolen time per run</" + hn + ">\n";
  h += "<p class=\"legend\"><span><i style=\"background:#9e9e9e\"></i>wall time over the undisturbed time (min of wall "
       "− stolen)</span>";
  for (size_t i = 0; i < m.chart_series.size(); ++i)
    h += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", series_color(i, m.chart_series[i]),
                     esc(m.chart_series[i]));
  h += "</p>\n" + runs_chart_svg(m);

  if (!m.sources.empty()) {
    h += "<" + hn + ">Share of the variance</" + hn + ">\n" + shares_chart_svg(m);
    h += "<table class=\"sources\"><tr><th>source</th><th>share</th><th>95 % interval</th><th>time/run</th>"
         "<th>% of run</th><th>count/run</th><th>max</th></tr>\n";
    for (const auto& r : m.sources) {
      std::string interval = !r.share_low || !r.share_high ? ""
                             : r.uncertain                 ? "uncertain"
                                           : format_share(*r.share_low) + " – " + format_share(*r.share_high);
      std::string time = r.inconsistent ? "inconsistent"
                         : r.timed      ? format_duration(r.mean_time_ns) + (r.estimated ? " (est.)" : "")
                                        : "";
      h += fmt::format(
          "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          esc(r.source), m.attributable ? esc(format_share(r.share)) : "–", esc(interval), esc(time),
          r.timed && !r.inconsistent ? esc(format_percent(r.pct_of_run, 2)) : "",
          !r.remainder ? fmt::format("{:.1f}", r.mean_count) : "", r.max_ns > 0 ? esc(format_duration(r.max_ns)) : "");
    }
    h += "</table>\n";
    if (m.negative_shares) h += "<p class=\"note\">" + esc(kNegativeShareNote) + "</p>\n";
  }
  return h;
}

std::string advice(const ReportModel& m, const std::string& hn) {
  std::string h;
  size_t n = 0;
  for (const auto& g : m.advice) {
    h += "<" + hn + ">" + esc(g.title) + "</" + hn + ">\n";
    if (!g.note.empty()) h += "<p class=\"meta\">" + esc(g.note) + "</p>\n";
    h += fmt::format("<ol class=\"recommendations\" start=\"{}\">\n", n + 1);
    n += g.items.size();
    for (const auto& r : g.items) {
      h += fmt::format(
          "<li id=\"rec-{}{}\"><strong>{}</strong>{}{}", esc(r.id), m.html_id, esc(r.title),
          r.share > 0 ? fmt::format(" — {} {}", g.up_to ? "may address up to" : "addresses", esc(format_share(r.share)))
                      : "",
          r.reboot ? " (needs a reboot)" : "");
      if (!r.commands.empty()) {
        h += "<pre><code>";
        for (const auto& c : r.commands) h += esc(c) + "\n";
        h += "</code></pre>";
      }
      if (!r.tradeoff.empty()) h += "<p>Trade-off: " + esc(r.tradeoff) + "</p>";
      h += "</li>\n";
    }
    h += "</ol>\n";
  }
  return h;
}

// One label's block in a report of several: a section with its own headline, charts and advice.
std::string block(const ReportModel& b) {
  std::string h =
      fmt::format("<section class=\"label\" id=\"label{}\">\n<h2>{} <span class=\"meta\">({} window{})</span></h2>\n",
                  b.html_id, esc(shown_label(b.label)), b.summary.runs, b.summary.runs == 1 ? "" : "s");
  h += "<p class=\"headline\">" + esc(b.headline) + "</p>\n";
  h += summary_table(b) + charts_and_sources(b, "h3") + warnings(b, "h3") + advice(b, "h3");
  return h + "</section>\n";
}

}  // namespace

std::string render_html(const ReportModel& m) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<title>noisewatch: " + esc(m.command) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<h1>noisewatch: <code>" + esc(m.command) + "</code></h1>\n";
  h += fmt::format("<p class=\"meta\">CPU {} · {}{}{}</p>\n", esc(m.cpus), esc(m.repetitions),
                   m.host.virtualized ? " · virtual machine" : "",
                   m.host.cpu_model.empty() ? "" : " · " + esc(m.host.cpu_model));
  h += "<p class=\"headline\">" + esc(m.headline) + "</p>\n";
  if (m.failed) {
    h += "<p>" + esc(kFailedAdvice) + ":</p>\n<pre><code>" + esc(m.rerun) + "</code></pre>\n";
    h += warnings(m);
    return h + "</body>\n</html>\n";
  }

  if (m.blocks.empty()) h += summary_table(m);
  h += label_table(m);
  if (m.blocks.empty()) h += charts_and_sources(m, "h2");
  if (m.timeline) h += timeline_section(*m.timeline, m.chart_series);
  h += warnings(m);
  h += advice(m, "h2");
  for (const auto& b : m.blocks) h += block(b);
  if (!m.unavailable.empty()) {
    h += "<h2>Not measured</h2>\n<ul>\n";
    for (const auto& u : m.unavailable) h += "<li>" + esc(u.probe) + ": " + esc(u.reason) + "</li>\n";
    h += "</ul>\n";
  }
  h += kLayoutProbe;
  return h + "</body>\n</html>\n";
}

}  // namespace nw::report
