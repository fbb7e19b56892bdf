// SPDX-License-Identifier: Apache-2.0
#include "reports/narrative.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/source_matrix.h"
#include "reports/units.h"
#include "sources/vocabulary.h"
#include "stats/descriptive.h"

namespace nw::report {

namespace {

std::string join_runs(const std::vector<int>& runs) {
  std::string s;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i == 8) return s + ", …";
    s += (i ? ", " : "") + std::to_string(runs[i]);
  }
  return s;
}

double share_of(const AttributionResult& a, std::string_view source) {
  for (const auto& r : a.rows)
    if (r.source == source) return r.share;
  return 0;
}

std::string share_phrase(const AttributedSource& r) {
  // The exact decomposition can give a source slightly more than 100 % (the rest is then
  // negative); a headline says "100 %".
  std::string s = format_share(std::min(r.share, 1.0));
  return r.uncertain ? s + " (uncertain)" : s;
}

}  // namespace

std::optional<FailedStart> failed_start(const RunRecord& rec) {
  for (const auto* r : rec.measured())
    if (r->exit_status == 0) return std::nullopt;
  for (const auto& r : rec.samples) {
    if (r.interrupted || r.exit_status == 0) continue;
    FailedStart f{r.index, r.warmup, r.exit_status, r.signal, {}};
    std::string how = r.signal ? fmt::format("was killed by signal {}", *r.signal)
                               : fmt::format("exited with status {}", r.exit_status);
    f.headline = r.warmup ? fmt::format("The benchmark failed before any measured run: its warm-up run {}", how)
                          : fmt::format("The benchmark failed in its first measured run: run {} {}", r.index, how);
    return f;
  }
  return std::nullopt;
}

std::string headline(const NarrativeInput& in) {
  const auto& p = in.patterns;
  if (p.runs == 0) return "No measured runs: nothing to report";
  std::string lead = fmt::format("CV {} over {} run{}", format_percent(p.cv, 2), p.runs, p.runs == 1 ? "" : "s");
  if (p.stability == "stable") lead += " (stable)";
  const auto& a = in.attribution;
  if (!a.attributable) return lead + " — " + a.reason;
  const auto& top = a.rows.front();
  // A neighbour that follows the remainder is named before the host: it is on this machine.
  std::string what =
      top.source != sources::kUnexplained ? sources::describe(top.source)
      : !in.leads.empty()
          ? fmt::format("sources noisewatch cannot see (likely {}, busy on another CPU in the slow runs{})",
                        describe_lead(in.leads.front()), in.rec.host.virtualized ? "; on this VM also the host" : "")
      : in.rec.host.virtualized ? "sources noisewatch cannot see (on this VM, most likely the host)"
                                : "sources noisewatch cannot see (unexplained)";
  std::string line = fmt::format("{} — {} of the variance comes from {}", lead, share_phrase(top), what);
  // A runner-up with a fifth of the variance or more is part of the story: name it too.
  if (a.rows.size() > 1 && a.rows[1].share >= 0.2)
    line += fmt::format(
        ", {} from {}", share_phrase(a.rows[1]),
        a.rows[1].source == sources::kUnexplained ? "sources it cannot see" : sources::describe(a.rows[1].source));
  return line;
}

std::vector<std::string> warnings(const NarrativeInput& in) {
  std::vector<std::string> w;
  const auto& p = in.patterns;
  const auto& a = in.attribution;
  const auto& rec = in.rec;
  if (rec.interrupted) w.push_back(fmt::format("The run was interrupted: only {} measured runs completed.", p.runs));
  if (!a.attributable && p.runs > 0)
    w.push_back(fmt::format("Attribution is not possible: {} ({} measured). Run at least {} repetitions.", a.reason,
                            p.runs, kMinRunsToAttribute * 2));
  if (p.stability == "unstable")
    w.push_back(fmt::format("CV {} is above {}: these timings are unstable; do not compare them with others yet.",
                            format_percent(p.cv, 2), format_percent(kCvUnstable, 0)));
  else if (p.stability == "moderate")
    w.push_back(fmt::format("CV {} is above {}: differences of a few percent between builds will be hidden by noise.",
                            format_percent(p.cv, 2), format_percent(kCvModerate, 0)));
  if (p.runs >= 2 && p.ci_half_width > kTargetPrecision)
    w.push_back(
        fmt::format("Too few runs for this CV: with {} runs the mean is known to ±{} (95 %); about {} runs "
                    "would give ±{}{}.",
                    p.runs, format_percent(p.ci_half_width), p.runs_needed, format_percent(kTargetPrecision, 0),
                    p.runs_needed > 200 ? " — too many: remove the noise first" : ""));
  for (const auto& o : p.outliers)
    w.push_back(fmt::format("Run {} is an outlier (modified z-score {:.1f}){}.", o.run, o.z,
                            o.source.empty() ? std::string{} : ": mostly " + sources::describe(o.source)));
  if (p.bimodal.found)
    w.push_back(fmt::format(
        "Bimodal: the runs form two clusters, {} and {} (slow runs: {}){}.", format_duration(p.bimodal.fast_mean_ns),
        format_duration(p.bimodal.slow_mean_ns), join_runs(p.bimodal.slow_runs),
        p.bimodal.source.empty() ? std::string("; no measured source explains the gap")
                                 : fmt::format("; {} accounts for {} of the gap", sources::describe(p.bimodal.source),
                                               format_share(std::min(p.bimodal.source_fraction, 1.0)))));
  if (p.drift.found)
    w.push_back(fmt::format(
        "Drift: the runs get {} by {} from first to last (Mann-Kendall p = {:.2g}){}{}.",
        p.drift.slope_ns_per_run > 0 ? "slower" : "faster", format_percent(std::fabs(p.drift.total_fraction)),
        p.drift.p_value, p.drift.source.empty() ? std::string{} : ", following " + sources::describe(p.drift.source),
        p.drift.frequency_falling ? "; the frequency falls across the runs (thermal throttling?)" : ""));
  if (p.slow_first.found)
    w.push_back(
        fmt::format("The first measured run was {} slower than the others: caches, page cache or frequency "
                    "were still warming up; add warm-up runs.",
                    format_percent(p.slow_first.excess)));
  // On one CPU the account of a run (its own CPU time, blocking and every charged source)
  // covers the wall time but for what no probe saw: say when that is a tenth or more, with the
  // host named as the likely cause only on a VM.
  if (rec.cpus.size() == 1) {
    std::vector<double> fractions;
    for (const RunSample* r : rec.measured())
      if (auto u = r->unaccounted_ns(); u && r->wall_ns) fractions.push_back(double(*u) / double(r->wall_ns));
    if (!fractions.empty()) {
      double median = stats::median(fractions);
      if (median >= kUnaccountedWarn)
        w.push_back(
            fmt::format("{} of a run's wall time (median) is accounted for by nothing measured: not the "
                        "benchmark's CPU time, its blocking, nor any source{}{}.",
                        format_percent(median, 0),
                        rec.host.virtualized ? "; on this VM most likely the host (a vCPU descheduled "
                                               "without steal being reported)"
                                             : "; a source noisewatch has no probe for here (see Not measured)",
                        in.leads.empty()
                            ? std::string{}
                            : fmt::format(", or {}, which is busy in the slow runs", describe_lead(in.leads.front()))));
    }
  }
  double unexplained = share_of(a, sources::kUnexplained);
  if (rec.host.virtualized)
    w.push_back(
        fmt::format("This is a virtual machine: host-side contention (other guests, the host's frequency "
                    "and SMT) is invisible from inside and lands in `unexplained`{}.",
                    a.attributable ? " (" + format_share(unexplained) + " here)" : std::string{}));
  else if (a.attributable && unexplained >= 0.5)
    w.push_back(
        fmt::format("{} of the variance is unexplained: its cause leaves no OS event (cache or memory "
                    "interference, code and data layout, frequency when not measured).",
                    format_share(unexplained)));
  for (const auto& lead : in.leads) w.push_back(lead_sentence(lead));
  if (a.attributable && in.split.instructions_share && *in.split.instructions_share >= 0.05)
    w.push_back(fmt::format(
        "The workload itself varies: retired instructions change by {} (CV) and follow the run "
        "time ({} of the variance). Fix seeds and inputs.",
        format_percent(in.split.instructions_cv.value_or(0), 2), format_share(*in.split.instructions_share)));
  // Blocking: the total, or its parts by cause (sleeps, I/O, waits) where the record has them.
  double blocking = 0;
  std::vector<std::string> causes;
  for (const auto& r : a.rows) {
    auto id = sources::parse(r.source);
    if (id.category != sources::kBlocking) continue;
    blocking += r.share;
    if (!id.name.empty() && r.share >= 0.05)
      causes.push_back(fmt::format("{} {}", sources::describe(id), format_share(r.share)));
  }
  if (a.attributable && blocking >= 0.05)
    w.push_back(
        fmt::format("{} of the variance is the benchmark's own blocking ({}): the workload's doing, not noise.",
                    format_share(blocking),
                    causes.empty() ? std::string("I/O, sleeps, waits") : fmt::format("{}", fmt::join(causes, "; "))));
  double contention = 0;
  const std::string bench_comm = sources::benchmark_comm(rec.command);
  for (const auto& r : a.rows)
    if (sources::is_contention(sources::parse(r.source), bench_comm)) contention += r.share;
  if (a.attributable && contention >= 0.05)
    w.push_back(
        fmt::format("{} of the variance is the benchmark's own threads competing for its CPUs: the workload's "
                    "doing, not noise.",
                    format_share(contention)));
  for (const auto& r : a.rows) {
    // A count that follows the run time at an impossible cost per event is a chance correlation.
    if (!a.attributable || !r.fit || r.fit->plausible) continue;
    auto what = sources::describe(r.source);
    if (!what.empty()) what[0] = char(std::toupper(static_cast<unsigned char>(what[0])));
    if (r.mean_overlap_ns)
      w.push_back(
          fmt::format("{} follows the run time, but the fitted slowdown ({:.0f} % of the time both ran) is more "
                      "than the overlap itself: it gets no share, and that time stays unexplained.",
                      what, 100 * r.fit->per_event_ns));
    else
      w.push_back(
          fmt::format("{} follow the run time, but the fitted cost ({} per event) is above what one can cost "
                      "({}): it gets no share, and that time stays unexplained.",
                      what, format_duration(r.fit->per_event_ns), format_duration(r.fit->max_per_event_ns)));
  }
  for (const auto& r : a.rows) {
    if (r.inconsistent_runs.empty()) continue;
    w.push_back(
        fmt::format("The record is inconsistent: {} took longer than the whole run in run{} {}; its time is not "
                    "shown (the probe data of this record is wrong).",
                    r.source, r.inconsistent_runs.size() == 1 ? "" : "s", join_runs(r.inconsistent_runs)));
  }
  int failed = 0, first_failed = -1, status = 0;
  for (const auto* r : rec.measured())
    if (r->exit_status != 0 && failed++ == 0) {
      first_failed = r->index;
      status = r->exit_status;
    }
  if (failed)
    w.push_back(fmt::format("{} measured run{} failed (run {} exited with status {}); their timings are included.",
                            failed, failed == 1 ? "" : "s", first_failed, status));
  if (rec.lost_events)
    w.push_back(fmt::format("The probes lost {} events: the measured sources undercount.", rec.lost_events));
  return w;
}

}  // namespace nw::report
