// SPDX-License-Identifier: Apache-2.0
// The terminal report: headline first, then the numbers, then what to do.
#include <cctype>

#include <fmt/color.h>
#include <fmt/format.h>

#include "reports/labels.h"
#include "reports/model.h"
#include "reports/units.h"

namespace nw::report {

namespace {

// Sources beyond this many rows are summarised in one line (the JSON keeps them all).
constexpr size_t kTextRows = 12;

struct Painter {
  bool color;
  std::string operator()(const std::string& s, fmt::text_style st) const {
    return color ? fmt::format(st, "{}", s) : s;
  }
};

std::string interval(const SourceRow& r) {
  if (!r.share_low || !r.share_high) return "";
  if (r.uncertain) return "uncertain";
  return fmt::format("{} – {}", format_share(*r.share_low), format_share(*r.share_high));
}

template <class Line>
void warnings(const ReportModel& m, const Painter& paint, Line& line) {
  if (m.warnings.empty()) return;
  line(paint("Warnings", fmt::emphasis::bold));
  for (const auto& w : m.warnings) line(paint("  ! ", fmt::fg(fmt::terminal_color::yellow)) + w);
  line();
}

// The text of one set of repetitions: its summary, sources, warnings and advice.
template <class Line>
void summary(const ReportModel& m, const Painter& paint, Line& line) {
  const auto& s = m.summary;
  line(paint("Summary", fmt::emphasis::bold));
  line(fmt::format("  runs {}   mean {}   median {}   min {}   max {}   stddev {}   CV {}", s.runs,
                   format_duration(s.mean_ns), format_duration(s.median_ns), format_duration(s.min_ns),
                   format_duration(s.max_ns), format_duration(s.stddev_ns), format_percent(s.cv, 2)));
  line();
}

template <class Line>
void label_table(const ReportModel& m, const Painter& paint, Line& line) {
  if (m.labels.empty()) return;
  const std::string& u = m.label_unit;
  line(paint(fmt::format("{}{}s by label", char(std::toupper(u[0])), u.substr(1)), fmt::emphasis::bold));
  size_t w = 5;
  for (const auto& r : m.labels) w = std::max(w, r.label.size());
  line(fmt::format("  {:<{}}  {:>7}  {:>10}  {:>7}  {:>13}", "label", w, u + "s", "median", "CV", "stolen/" + u));
  for (const auto& r : m.labels)
    line(fmt::format("  {:<{}}  {:>7}  {:>10}  {:>7}  {:>13}", shown_label(r.label), w, r.windows,
                     format_duration(r.median_ns), format_percent(r.cv, 2), format_duration(r.mean_stolen_ns)));
  line();
}

template <class Line>
void sources(const ReportModel& m, const Painter& paint, Line& line) {
  if (m.sources.empty()) return;
  line(paint("Sources", fmt::emphasis::bold) +
       " (ranked by share of the run-to-run variance; 95 % bootstrap interval)");
  size_t w = 6;
  for (size_t i = 0; i < m.sources.size() && i < kTextRows; ++i) w = std::max(w, m.sources[i].source.size());
  line(fmt::format("  {:<{}}  {:>6}  {:>11}  {:>10}  {:>8}  {:>9}  {:>10}", "source", w, "share", "interval",
                   "time/run", "% of run", "count/run", "max"));
  for (size_t i = 0; i < m.sources.size() && i < kTextRows; ++i) {
    const auto& r = m.sources[i];
    const bool timed = r.timed;
    std::string time = r.inconsistent ? "inconsistent"
                       : timed        ? format_duration(r.mean_time_ns) + (r.estimated ? "*" : "")
                                      : "";
    std::string row = fmt::format("  {:<{}}  {:>6}  {:>11}  {:>10}  {:>8}  {:>9}  {:>10}", r.source, w,
                                  m.attributable ? format_share(r.share) : "-", interval(r), time,
                                  timed && !r.inconsistent ? format_percent(r.pct_of_run, 2) : "",
                                  !r.remainder ? fmt::format("{:.1f}", r.mean_count) : "",
                                  r.max_ns > 0 ? format_duration(r.max_ns) : "");
    line(i == 0 && m.attributable && r.share >= 0.2 ? paint(row, fmt::fg(fmt::terminal_color::red)) : row);
  }
  if (m.sources.size() > kTextRows)
    line(fmt::format("  … and {} more sources (see --format json)", m.sources.size() - kTextRows));
  bool estimated = false;
  for (const auto& r : m.sources) estimated |= r.estimated;
  if (estimated)
    line("  * estimated: events (for smt: the time both ran) x a cost fitted on the unexplained remainder");
  if (m.negative_shares) line(std::string("  ") + kNegativeShareNote);
  line();
}

template <class Line>
void advice(const ReportModel& m, const Painter& paint, Line& line) {
  const auto bold = fmt::emphasis::bold;
  int n = 0;
  for (const auto& g : m.advice) {
    line(paint(g.title, bold) + (g.note.empty() ? "" : " (" + g.note + ")"));
    for (const auto& r : g.items) {
      std::string share = r.share > 0 ? fmt::format("  [{}{}]", g.up_to ? "up to " : "", format_share(r.share)) : "";
      line(fmt::format("  {}. {}{}{}", ++n, paint(r.title, fmt::fg(fmt::terminal_color::green) | bold), share,
                       r.reboot ? "  (reboot)" : ""));
      for (const auto& c : r.commands) line("       " + paint(c, fmt::fg(fmt::terminal_color::cyan)));
      if (!r.tradeoff.empty()) line("       trade-off: " + r.tradeoff);
    }
    line();
  }
}

// One label's block in a report of several: a rule naming it, then the report of its windows.
template <class Line>
void block(const ReportModel& b, const Painter& paint, Line& line) {
  const auto bold = fmt::emphasis::bold;
  const std::string title =
      fmt::format("{} ({} window{})", shown_label(b.label), b.summary.runs, b.summary.runs == 1 ? "" : "s");
  std::string rule;
  for (size_t i = title.size() + 4; i < 78; ++i) rule += "─";
  line(paint("── " + title + " " + rule, bold));
  line(paint(b.headline, bold));
  line();
  summary(b, paint, line);
  sources(b, paint, line);
  warnings(b, paint, line);
  advice(b, paint, line);
}

}  // namespace

std::string render_text(const ReportModel& m, bool color) {
  Painter paint{color};
  const auto bold = fmt::emphasis::bold;
  std::string out;
  auto line = [&](const std::string& s = {}) { out += s + "\n"; };

  line(paint("noisewatch", bold) +
       fmt::format(": {}   (CPU {}, {})", m.command.empty() ? "?" : m.command, m.cpus, m.repetitions));
  line(paint(m.headline, bold));
  line();
  if (m.failed) {
    // A short report: what failed, how to see why, and the runner's own warnings.
    line(std::string(kFailedAdvice) + ":");
    line("  " + paint(m.rerun, fmt::fg(fmt::terminal_color::cyan)));
    line();
    warnings(m, paint, line);
    trim_blank_tail(out);
    return out;
  }
  if (m.blocks.empty()) summary(m, paint, line);
  label_table(m, paint, line);
  sources(m, paint, line);
  warnings(m, paint, line);
  advice(m, paint, line);
  for (const auto& b : m.blocks) block(b, paint, line);
  if (!m.unavailable.empty()) {
    line(paint("Not measured", bold));
    for (const auto& u : m.unavailable) line(fmt::format("  {}: {}", u.probe, u.reason));
  }
  trim_blank_tail(out);
  return out;
}

}  // namespace nw::report
