// SPDX-License-Identifier: Apache-2.0
// Markdown to paste into a pull request or an issue (GitHub-flavoured tables).
#include <cctype>

#include <fmt/format.h>

#include "common/markdown.h"
#include "reports/labels.h"
#include "reports/model.h"
#include "reports/units.h"

namespace nw::report {

namespace {

std::string interval(const SourceRow& r) {
  if (!r.share_low || !r.share_high) return "";
  return r.uncertain ? "uncertain" : format_share(*r.share_low) + " – " + format_share(*r.share_high);
}

std::string time(const SourceRow& r) {
  if (r.inconsistent) return "inconsistent";
  return r.timed ? format_duration(r.mean_time_ns) + (r.estimated ? " (est.)" : "") : "";
}

template <class Line>
void warnings(const ReportModel& m, Line& line) {
  if (m.warnings.empty()) return;
  line("**Warnings**");
  line();
  for (const auto& w : m.warnings) line("- " + w);
  line();
}

template <class Line>
void summary(const ReportModel& m, Line& line) {
  const auto& s = m.summary;
  line("| runs | mean | median | min | max | stddev | CV |");
  line("|---:|---:|---:|---:|---:|---:|---:|");
  line(fmt::format("| {} | {} | {} | {} | {} | {} | {} |", s.runs, format_duration(s.mean_ns),
                   format_duration(s.median_ns), format_duration(s.min_ns), format_duration(s.max_ns),
                   format_duration(s.stddev_ns), format_percent(s.cv, 2)));
  line();
}

template <class Line>
void label_table(const ReportModel& m, Line& line) {
  if (!m.labels.empty()) {
    line(fmt::format("| label | {}s | median | CV | stolen/{} |", m.label_unit, m.label_unit));
    line("|---|---:|---:|---:|---:|");
    for (const auto& r : m.labels)
      line(fmt::format("| `{}` | {} | {} | {} | {} |", markdown_cell(shown_label(r.label)), r.windows,
                       format_duration(r.median_ns), format_percent(r.cv, 2), format_duration(r.mean_stolen_ns)));
    line();
  }
}

template <class Line>
void sources(const ReportModel& m, Line& line) {
  if (!m.sources.empty()) {
    line("| source | share of variance | 95 % interval | time/run | % of run | count/run | max |");
    line("|---|---:|---:|---:|---:|---:|---:|");
    for (const auto& r : m.sources)
      line(fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |", markdown_cell(r.source),
                       m.attributable ? format_share(r.share) : "–", interval(r), time(r),
                       r.timed && !r.inconsistent ? format_percent(r.pct_of_run, 2) : "",
                       !r.remainder ? fmt::format("{:.1f}", r.mean_count) : "",
                       r.max_ns > 0 ? format_duration(r.max_ns) : ""));
    line();
    if (m.negative_shares) {
      std::string note = kNegativeShareNote;
      note[0] = char(std::toupper(static_cast<unsigned char>(note[0])));
      line(note + ".");
      line();
    }
  }
}

template <class Line>
void advice(const ReportModel& m, Line& line) {
  int n = 0;
  for (const auto& g : m.advice) {
    line("**" + g.title + "**" + (g.note.empty() ? "" : " (" + g.note + ")"));
    line();
    for (const auto& r : g.items) {
      // Ordered lists continue their numbering across groups (the start number is kept).
      line(fmt::format("{}. **{}**{}{}", ++n, r.title,
                       r.share > 0
                           ? fmt::format(" — {} {}", g.up_to ? "may address up to" : "addresses", format_share(r.share))
                           : "",
                       r.reboot ? " (needs a reboot)" : ""));
      if (!r.commands.empty()) {
        line("   ```sh");
        for (const auto& c : r.commands) line("   " + c);
        line("   ```");
      }
      if (!r.tradeoff.empty()) line("   Trade-off: " + r.tradeoff);
    }
    line();
  }
}

// One label's block in a report of several: a heading naming it, then the report of its windows.
template <class Line>
void block(const ReportModel& b, Line& line) {
  line(fmt::format("#### `{}` ({} window{})", markdown_cell(shown_label(b.label)), b.summary.runs,
                   b.summary.runs == 1 ? "" : "s"));
  line();
  line("**" + b.headline + "**");
  line();
  summary(b, line);
  sources(b, line);
  warnings(b, line);
  advice(b, line);
}

}  // namespace

std::string render_markdown(const ReportModel& m) {
  std::string out;
  auto line = [&](const std::string& s = {}) { out += s + "\n"; };
  line("### noisewatch: `" + m.command + "`");
  line();
  line("**" + m.headline + "**");
  line();
  if (m.failed) {
    line(std::string(kFailedAdvice) + ":");
    line();
    line("```sh");
    line(m.rerun);
    line("```");
    line();
    warnings(m, line);
    trim_blank_tail(out);
    return out;
  }
  line(fmt::format("CPU {} · {}{}", m.cpus, m.repetitions, m.host.virtualized ? " · virtual machine" : ""));
  line();
  if (m.blocks.empty()) summary(m, line);
  label_table(m, line);
  sources(m, line);
  warnings(m, line);
  advice(m, line);
  for (const auto& b : m.blocks) block(b, line);
  if (!m.unavailable.empty()) {
    line("<details><summary>Not measured</summary>");
    line();
    for (const auto& u : m.unavailable) line("- " + u.probe + ": " + u.reason);
    line();
    line("</details>");
  }
  trim_blank_tail(out);
  return out;
}

}  // namespace nw::report
