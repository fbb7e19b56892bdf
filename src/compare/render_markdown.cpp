// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "common/markdown.h"
#include "compare/render.h"

namespace nw::compare {

namespace {

std::string ci_cell(const TimingResult& t) {
  return t.ci_bounded ? fmt::format("{:.4f}–{:.4f}", t.ci_low, t.ci_high) : "no CI (too few runs)";
}

std::string p_detail(const TimingResult& t, size_t family, const Comparison& c) {
  if (!t.tested) return c.live ? untested_words(c) : "no test";
  std::string p = fmt::format("{} ({})", format_p(t.p_value), test_method(t));
  return family > 1 ? p + fmt::format(", Holm {}", format_p(t.p_adjusted)) : p;
}

void summary_table(std::string& out, const Comparison& c) {
  out += "| benchmark | BASE | NEW | change | p | verdict |\n|---|---:|---:|---:|---:|---|\n";
  for (const auto& b : c.benchmarks) {
    std::string note = cpu_note(b);
    out +=
        fmt::format("| `{}` | {} | {} | {} | {} | {}{} |\n", markdown_cell(b.name), format_duration(b.base.median_ns),
                    format_duration(b.next.median_ns), change_cell(b.timing), p_cell(b.timing),
                    verdict_name(b.timing.verdict), note.empty() ? "" : fmt::format(" ({})", note));
  }
  out += fmt::format("\n{}\n\n", test_legend(c));
}

void benchmark_markdown(std::string& out, const Comparison& c, const BenchmarkComparison& b) {
  const Options& o = c.options;
  size_t family = c.summary.tested;
  out += fmt::format("## `{}`: **{}**\n\n", markdown_cell(b.name), verdict_name(b.timing.verdict));
  if (!c.live) out += b.explanation + "\n\n";  // live: it leads the document
  out += fmt::format("| | median | cv | runs |\n|---|---:|---:|---:|\n");
  out +=
      fmt::format("| BASE | {} | {:.2f} % | {} |\n", format_duration(b.base.median_ns), b.base.cv * 100, b.base.runs);
  out +=
      fmt::format("| NEW | {} | {:.2f} % | {} |\n\n", format_duration(b.next.median_ns), b.next.cv * 100, b.next.runs);
  out += fmt::format("| | NEW/BASE | {:.0f} % CI | Hodges-Lehmann | p | verdict |\n|---|---:|---|---:|---:|---|\n",
                     (1 - o.alpha) * 100);
  auto row = [&](const std::string& what, const TimingResult& t, size_t n) {
    out += fmt::format("| {} | {:.4f} | {} | {:.4f} | {} | {} |\n", what, t.ratio, ci_cell(t), t.hl_ratio,
                       p_detail(t, n, c), verdict_name(t.verdict));
  };
  row("wall time", b.timing, family);
  if (b.cpu && (b.cpu->disagrees || c.benchmarks.size() == 1))
    row(fmt::format("CPU time ({})", b.cpu->basis), b.cpu->timing, family);
  if (b.adjusted) row("wall minus noise", *b.adjusted, 1);
  out += "\n";
  if (b.has_noise && !b.noise_diff.empty()) {
    out +=
        "| noise source | BASE mean/run | NEW mean/run | change | points | p | significant |\n"
        "|---|---:|---:|---:|---:|---:|---|\n";
    for (const auto& n : b.noise_diff)
      out += fmt::format("| `{}` | {} | {} | {}{} | {} | {} | {} |\n", markdown_cell(n.source),
                         format_duration(n.base_mean_ns), format_duration(n.new_mean_ns), n.change_ns >= 0 ? "+" : "",
                         format_duration(n.change_ns), format_signed_points(n.change_points), format_p(n.p_value),
                         n.significant ? "yes" : "no");
    out += "\n";
  }
}

}  // namespace

std::string render_markdown(const Comparison& c) {
  std::string out = "# noisewatch compare\n\n";
  if (const auto lines = live_lines(c); !lines.empty()) {
    out += "**" + lines.front() + "**\n\n";
    for (size_t i = 1; i < lines.size(); ++i) out += "- " + lines[i] + "\n";
    out += "\n";
  }
  out += fmt::format("- BASE: `{}` ({})\n- NEW: `{}` ({})\n\n", markdown_cell(c.base_label), c.base_format,
                     markdown_cell(c.new_label), c.new_format);
  out += "**" + summary_sentence(c) + "**\n\n";
  summary_table(out, c);
  for (const auto& b : c.benchmarks)
    if (shows_details(c, b)) benchmark_markdown(out, c, b);
  if (auto para = inconclusive_paragraph(c); !para.empty()) out += para + "\n\n";
  if (!c.host_diff.empty()) {
    out += "## The machines differ\n\n| | BASE | NEW |\n|---|---|---|\n";
    for (const auto& h : c.host_diff)
      out += fmt::format("| {} | {} | {} |\n", h.field, markdown_cell(h.base), markdown_cell(h.next));
    out += "\n";
  }
  if (!c.warnings.empty()) {
    out += "## Warnings\n\n";
    for (const auto& w : c.warnings) out += "- " + w + "\n";
    out += "\n";
  }
  if (auto gate = fail_above_sentence(c); !gate.empty()) out += gate + "\n";
  return out;
}

}  // namespace nw::compare
