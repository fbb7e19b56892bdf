// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include <fmt/format.h>

#include "compare/render.h"

namespace nw::compare {

namespace {

// The table shows every significant source and fills up to this many rows with the largest others.
constexpr size_t kNoiseRows = 12;
// Longer benchmark names overflow their column rather than being cut: the name is the key.
constexpr size_t kMaxNameColumn = 48;

std::vector<const NoiseChange*> rows_to_show(const std::vector<NoiseChange>& all) {
  std::vector<const NoiseChange*> out;
  for (const auto& n : all)
    if (n.significant || out.size() < kNoiseRows) out.push_back(&n);
  return out;
}

std::string timing_line(const std::string& what, const TimingResult& t, double level, size_t family,
                        const std::string& untested) {
  std::string ci =
      t.ci_bounded ? fmt::format("{:.0f} % CI {:.4f}–{:.4f}", level, t.ci_low, t.ci_high) : "no CI (too few runs)";
  std::string p = untested;
  if (t.tested) {
    p = fmt::format("Mann-Whitney p {} ({})", format_p(t.p_value), test_method(t));
    if (family > 1) p += fmt::format(", Holm {}", format_p(t.p_adjusted));
  }
  return fmt::format("  {:<12} NEW/BASE {:.4f}  {}  Hodges-Lehmann {:.4f}  {}  -> {}\n", what + ":", t.ratio, ci,
                     t.hl_ratio, p, verdict_name(t.verdict));
}

void noise_table(std::string& out, const BenchmarkComparison& b, const Options& o) {
  out += fmt::format("\n  {:<28} {:>12} {:>12} {:>13} {:>7} {:>7}\n", "noise per run", "BASE", "NEW", "change",
                     "points", "p");
  auto rows = rows_to_show(b.noise_diff);
  for (const auto* n : rows)
    out += fmt::format("  {:<28} {:>12} {:>12} {:>13} {:>7} {:>7}{}\n", n->source, format_duration(n->base_mean_ns),
                       format_duration(n->new_mean_ns),
                       fmt::format("{}{}", n->change_ns >= 0 ? "+" : "", format_duration(n->change_ns)),
                       format_signed_points(n->change_points), format_p(n->p_value), n->significant ? " *" : "");
  if (rows.size() < b.noise_diff.size())
    out += fmt::format("  ({} more sources, none significant)\n", b.noise_diff.size() - rows.size());
  out +=
      fmt::format("  * significant (Mann-Whitney, Holm-corrected, alpha {:g}); points: % of BASE's median\n", o.alpha);
}

void benchmark_text(std::string& out, const Comparison& c, const BenchmarkComparison& b) {
  const Options& o = c.options;
  double level = (1 - o.alpha) * 100;
  size_t family = c.summary.tested;
  out += fmt::format("{}: {}\n", b.name, verdict_name(b.timing.verdict));
  out += fmt::format("  BASE median {:>12}  cv {:5.2f} %  {} run{}\n", format_duration(b.base.median_ns),
                     b.base.cv * 100, b.base.runs, b.base.runs == 1 ? "" : "s");
  out += fmt::format("  NEW  median {:>12}  cv {:5.2f} %  {} run{}\n", format_duration(b.next.median_ns),
                     b.next.cv * 100, b.next.runs, b.next.runs == 1 ? "" : "s");
  const std::string untested = untested_words(c);
  out += timing_line("wall time", b.timing, level, family, untested);
  if (b.cpu && b.cpu->means_only)
    out += fmt::format("  {:<12} NEW/BASE {:.4f} of the {}; no test: the input keeps no per-run CPU time\n",
                       "CPU time:", b.cpu->timing.ratio, b.cpu->basis);
  else if (b.cpu && (b.cpu->disagrees || c.benchmarks.size() == 1))
    out += timing_line("CPU time", b.cpu->timing, level, family, untested);
  if (b.adjusted) out += timing_line("minus noise", *b.adjusted, level, 1, untested);
  if (b.has_noise && !b.noise_diff.empty()) noise_table(out, b, o);
  if (!c.live) out += "\n  " + b.explanation + "\n";  // live: it leads the report
}

void table(std::string& out, const Comparison& c) {
  size_t width = 9;
  for (const auto& b : c.benchmarks) width = std::max(width, std::min(b.name.size(), kMaxNameColumn));
  out += fmt::format("  {:<{}}  {:>11}  {:>11}  {:>10}  {:>7}  {}\n", "benchmark", width, "BASE", "NEW", "change", "p",
                     "verdict");
  for (const auto& b : c.benchmarks) {
    std::string note = cpu_note(b);
    out +=
        fmt::format("  {:<{}}  {:>11}  {:>11}  {:>10}  {:>7}  {}{}\n", b.name, width, format_duration(b.base.median_ns),
                    format_duration(b.next.median_ns), change_cell(b.timing), p_cell(b.timing),
                    verdict_name(b.timing.verdict), note.empty() ? "" : fmt::format("  ({})", note));
  }
  out += "  " + test_legend(c) + "\n";
}

}  // namespace

std::string render_text(const Comparison& c) {
  std::string out;
  for (const auto& line : live_lines(c)) out += line + "\n";
  if (c.live) out += "\n";
  out += fmt::format("BASE {} ({})\nNEW  {} ({})\n\n", c.base_label, c.base_format, c.new_label, c.new_format);
  out += summary_sentence(c) + "\n\n";
  table(out, c);
  for (const auto& b : c.benchmarks) {
    if (!shows_details(c, b)) continue;
    out += "\n";
    benchmark_text(out, c, b);
  }
  if (auto para = inconclusive_paragraph(c); !para.empty()) out += "\n" + para + "\n";
  if (!c.host_diff.empty()) {
    out += "\nThe machines differ (BASE -> NEW):\n";
    for (const auto& h : c.host_diff) out += fmt::format("  {:<20} {} -> {}\n", h.field, h.base, h.next);
  }
  if (!c.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const auto& w : c.warnings) out += "  - " + w + "\n";
  }
  if (auto gate = fail_above_sentence(c); !gate.empty()) out += "\n" + gate + "\n";
  return out;
}

}  // namespace nw::compare
