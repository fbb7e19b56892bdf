// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include <fmt/color.h>
#include <fmt/format.h>

#include "check/check_render.h"
#include "check/cpu_noise.h"
#include "common/durations.h"
#include "system/cpu_selection.h"
#include "system/cpulist.h"

namespace nw::check {

namespace {

std::string status_cell(Status s, bool color) {
  std::string text = fmt::format("{:<8}", to_string(s));
  if (!color) return text;
  switch (s) {
    case Status::ok:
      return fmt::format(fmt::fg(fmt::terminal_color::green), "{}", text);
    case Status::info:
      return fmt::format(fmt::fg(fmt::terminal_color::cyan), "{}", text);
    case Status::warn:
      return fmt::format(fmt::fg(fmt::terminal_color::yellow), "{}", text);
    case Status::fail:
      return fmt::format(fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold, "{}", text);
    case Status::unknown:
      return fmt::format(fmt::fg(fmt::terminal_color::bright_black), "{}", text);
  }
  return text;
}

std::string duration(uint64_t ns) { return format_duration(double(ns)); }

std::string cpus_cell(const std::vector<int>& cpus) { return cpus.empty() ? "-" : sys::format_cpulist(cpus); }

}  // namespace

std::string render_text(const CheckReport& report, bool color) {
  std::string out;
  std::string unavailable = sys::unavailable_note(report.unavailable_cpus);
  out += fmt::format("noisewatch check: target CPU {} on {}{}\n\n", cpus_cell(report.target_cpus),
                     report.sysroot.empty() ? "this machine" : "sysroot " + report.sysroot,
                     unavailable.empty() ? "" : "; " + unavailable);
  size_t id_w = 5, cpu_w = 4;
  for (const auto& f : report.findings) {
    id_w = std::max(id_w, f.id.size());
    cpu_w = std::max(cpu_w, cpus_cell(f.cpus).size());
  }
  out += fmt::format("{:<8} {:<{}} {:<{}} {}\n", "STATUS", "CHECK", id_w, "CPUS", cpu_w, "SUMMARY");
  for (const auto& f : report.findings)
    out += fmt::format("{} {:<{}} {:<{}} {}\n", status_cell(f.status, color), f.id, id_w, cpus_cell(f.cpus), cpu_w,
                       f.summary);

  if (!report.cpus.empty()) {
    out += "\nMeasured noise (a spinning thread per CPU; gaps between clock reads):\n";
    out += fmt::format("  {:>4} {:>12} {:>12} {:>8}  {}\n", "CPU", "noise ppm", "max gap", "gaps", "top sources");
    for (const auto& c : rank_cpus(report.cpus)) {
      std::string sources;
      for (const auto& s : c.top_sources) {
        if (!sources.empty()) sources += ", ";
        sources += fmt::format("{} {}", s.source, duration(s.time_ns));
      }
      out += fmt::format("  {:>4} {:>12.0f} {:>12} {:>8}  {}\n", c.cpu, c.noise_ppm, duration(c.max_gap_ns), c.gaps,
                         sources.empty() ? "-" : sources);
    }
  }
  if (report.recommended_cpu)
    out += fmt::format("\nRecommended CPU: {} ({})\n", *report.recommended_cpu, report.recommendation_reason);
  for (const auto& n : report.notes) out += fmt::format("note: {}\n", n);

  bool any_fix = false;
  for (const auto& f : report.findings) {
    if (f.fix.empty() || (f.status != Status::warn && f.status != Status::fail)) continue;
    if (!any_fix) out += "\nFixes:\n";
    any_fix = true;
    out += fmt::format("  {}:\n", f.id);
    for (const auto& cmd : f.fix) out += fmt::format("    {}\n", cmd);
  }
  int counts[5] = {0, 0, 0, 0, 0};
  for (const auto& f : report.findings) counts[int(f.status)]++;
  out += fmt::format("\n{} ok, {} info, {} warn, {} fail, {} unknown: exit {}\n", counts[0], counts[1], counts[2],
                     counts[3], counts[4], report.exit_status());
  return out;
}

}  // namespace nw::check
