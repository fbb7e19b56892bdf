#include <fmt/format.h>

#include "compare/render.h"

namespace nw::compare {

namespace {

// The table shows every significant source and fills up to this many rows with the largest others.
constexpr size_t kNoiseRows = 12;

std::vector<const NoiseChange*> rows_to_show(const std::vector<NoiseChange>& all) {
  std::vector<const NoiseChange*> out;
  for (const auto& n : all)
    if (n.significant || out.size() < kNoiseRows) out.push_back(&n);
  return out;
}

std::string timing_line(const char* what, const TimingResult& t, double level) {
  std::string ci = t.ci_bounded ? fmt::format("{:.0f} % CI {:.4f}–{:.4f}", level, t.ci_low, t.ci_high)
                                 : "no CI (too few runs)";
  return fmt::format("  {} NEW/BASE {:.4f}  {}  Hodges-Lehmann {:.4f}  Mann-Whitney p {}  -> {}\n", what, t.ratio,
                     ci, t.hl_ratio, format_p(t.p_value), verdict_name(t.verdict));
}

void benchmark_text(std::string& out, const BenchmarkComparison& b, const Options& o) {
  double level = (1 - o.alpha) * 100;
  out += fmt::format("{}: {}\n", b.name, verdict_name(b.timing.verdict));
  out += fmt::format("  BASE median {:>12}  cv {:5.2f} %  {} runs\n", format_duration(b.base.median_ns),
                     b.base.cv * 100, b.base.runs);
  out += fmt::format("  NEW  median {:>12}  cv {:5.2f} %  {} runs\n", format_duration(b.next.median_ns),
                     b.next.cv * 100, b.next.runs);
  out += timing_line("wall time:  ", b.timing, level);
  if (b.adjusted) out += timing_line("minus noise:", *b.adjusted, level);
  if (b.has_noise && !b.noise_diff.empty()) {
    out += fmt::format("\n  {:<28} {:>12} {:>12} {:>13} {:>7} {:>7}\n", "noise per run", "BASE", "NEW", "change",
                       "points", "p");
    auto rows = rows_to_show(b.noise_diff);
    for (const auto* n : rows)
      out += fmt::format("  {:<28} {:>12} {:>12} {:>13} {:>7} {:>7}{}\n", n->source, format_duration(n->base_mean_ns),
                         format_duration(n->new_mean_ns),
                         (n->change_ns >= 0 ? "+" : "") + format_duration(n->change_ns),
                         format_signed_points(n->change_points), format_p(n->p_value), n->significant ? " *" : "");
    if (rows.size() < b.noise_diff.size())
      out += fmt::format("  ({} more sources, none significant)\n", b.noise_diff.size() - rows.size());
    out += fmt::format("  * significant (Mann-Whitney, Holm-corrected, alpha {:g}); points: % of BASE's median\n",
                       o.alpha);
  }
  out += "\n  " + b.explanation + "\n";
}

}  // namespace

std::string render_text(const Comparison& c) {
  std::string out = fmt::format("BASE {} ({})\nNEW  {} ({})\n\n", c.base_label, c.base_format, c.new_label, c.new_format);
  for (size_t i = 0; i < c.benchmarks.size(); ++i) {
    if (i) out += "\n";
    benchmark_text(out, c.benchmarks[i], c.options);
  }
  if (!c.host_diff.empty()) {
    out += "\nThe machines differ (BASE -> NEW):\n";
    for (const auto& h : c.host_diff) out += fmt::format("  {:<20} {} -> {}\n", h.field, h.base, h.next);
  }
  if (!c.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const auto& w : c.warnings) out += "  - " + w + "\n";
  }
  if (c.options.fail_above_percent)
    out += fmt::format("\n--fail-above {:g} %: {}\n", *c.options.fail_above_percent,
                       c.fail_above_exceeded() ? "exceeded (exit 1)" : "not exceeded");
  return out;
}

}  // namespace nw::compare
