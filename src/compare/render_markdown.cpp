#include <fmt/format.h>

#include "compare/render.h"

namespace nw::compare {

namespace {

// A table cell must not break the table: escape the column separator.
std::string cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return out;
}

std::string ci_cell(const TimingResult& t) {
  return t.ci_bounded ? fmt::format("{:.4f}–{:.4f}", t.ci_low, t.ci_high) : "too few runs";
}

void benchmark_markdown(std::string& out, const BenchmarkComparison& b, const Options& o) {
  out += fmt::format("## `{}`: **{}**\n\n", cell(b.name), verdict_name(b.timing.verdict));
  out += b.explanation + "\n\n";
  out += fmt::format("| | median | cv | runs |\n|---|---:|---:|---:|\n");
  out += fmt::format("| BASE | {} | {:.2f} % | {} |\n", format_duration(b.base.median_ns), b.base.cv * 100, b.base.runs);
  out += fmt::format("| NEW | {} | {:.2f} % | {} |\n\n", format_duration(b.next.median_ns), b.next.cv * 100, b.next.runs);
  out += fmt::format("| | NEW/BASE | {:.0f} % CI | Hodges-Lehmann | p | verdict |\n|---|---:|---|---:|---:|---|\n",
                     (1 - o.alpha) * 100);
  auto row = [&](const char* what, const TimingResult& t) {
    out += fmt::format("| {} | {:.4f} | {} | {:.4f} | {} | {} |\n", what, t.ratio, ci_cell(t), t.hl_ratio,
                       format_p(t.p_value), verdict_name(t.verdict));
  };
  row("wall time", b.timing);
  if (b.adjusted) row("wall minus noise", *b.adjusted);
  out += "\n";
  if (b.has_noise && !b.noise_diff.empty()) {
    out += "| noise source | BASE mean/run | NEW mean/run | change | points | p | significant |\n"
           "|---|---:|---:|---:|---:|---:|---|\n";
    for (const auto& n : b.noise_diff)
      out += fmt::format("| `{}` | {} | {} | {}{} | {} | {} | {} |\n", cell(n.source), format_duration(n.base_mean_ns),
                         format_duration(n.new_mean_ns), n.change_ns >= 0 ? "+" : "", format_duration(n.change_ns),
                         format_signed_points(n.change_points), format_p(n.p_value), n.significant ? "yes" : "no");
    out += "\n";
  }
}

}  // namespace

std::string render_markdown(const Comparison& c) {
  std::string out = "# noisewatch compare\n\n";
  out += fmt::format("- BASE: `{}` ({})\n- NEW: `{}` ({})\n\n", cell(c.base_label), c.base_format, cell(c.new_label),
                     c.new_format);
  for (const auto& b : c.benchmarks) benchmark_markdown(out, b, c.options);
  if (!c.host_diff.empty()) {
    out += "## The machines differ\n\n| | BASE | NEW |\n|---|---|---|\n";
    for (const auto& h : c.host_diff) out += fmt::format("| {} | {} | {} |\n", h.field, cell(h.base), cell(h.next));
    out += "\n";
  }
  if (!c.warnings.empty()) {
    out += "## Warnings\n\n";
    for (const auto& w : c.warnings) out += "- " + w + "\n";
    out += "\n";
  }
  if (c.options.fail_above_percent)
    out += fmt::format("`--fail-above {:g}`: {}\n", *c.options.fail_above_percent,
                       c.fail_above_exceeded() ? "**exceeded**" : "not exceeded");
  return out;
}

}  // namespace nw::compare
