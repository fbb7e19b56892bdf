// SPDX-License-Identifier: Apache-2.0
#include "reports/model.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/shell_words.h"
#include "reports/advice.h"
#include "sources/vocabulary.h"
#include "system/cpulist.h"

namespace nw::report {

namespace {

// Charts show at most this many sources by name; the rest is one "other" segment.
constexpr size_t kChartSeries = 6;

std::string join_command(const std::vector<std::string>& cmd) {
  std::string s;
  for (const auto& a : cmd) s += (s.empty() ? "" : " ") + a;
  return s;
}

SourceRow view_row(const AttributedSource& a) {
  SourceRow row;
  row.source = a.source;
  row.remainder = a.kind == RowKind::remainder;
  row.estimated = a.fit && a.fit->accepted();
  row.timed = !row.remainder && (!a.fit || row.estimated);
  row.share = a.share;
  row.share_low = a.share_low;
  row.share_high = a.share_high;
  row.uncertain = a.uncertain;
  row.inconsistent = !a.inconsistent_runs.empty();
  row.mean_time_ns = a.mean_time_ns;
  row.pct_of_run = a.pct_of_run;
  row.mean_count = a.mean_count;
  row.max_ns = a.max_ns;
  return row;
}

// Recommendations in the analysis's order, one group per tier with a heading saying its order.
std::vector<AdviceGroup> advice_groups(const std::vector<Recommendation>& recs) {
  const AdviceGroup headings[] = {
      {"Recommendations", "ranked by the share of the variance they address", false, {}},
      {"May reduce the unexplained part", "its cause is not measured: try one at a time and measure again", true, {}},
      {"About the measurement", "", false, {}}};
  std::vector<AdviceGroup> groups;
  for (const auto& rc : recs) {
    const auto& h = headings[size_t(tier_of(rc))];
    if (groups.empty() || groups.back().title != h.title) groups.push_back(h);
    groups.back().items.push_back(rc);
  }
  return groups;
}

// Stolen time per run (sources/vocabulary.h, is_stolen: not the benchmark's own blocking,
// contention or fault time), in attribution order so the charts' colours match the table.
void chart_runs(const RunRecord& rec, const Analysis& a, ReportModel& m) {
  const std::string bench_comm = sources::benchmark_comm(rec.command);
  auto stolen = [&](const std::string& s) { return sources::is_stolen(sources::parse(s), bench_comm); };
  std::vector<std::string> stolen_names;
  for (const auto& row : a.attribution.rows)
    if (row.kind == RowKind::time && stolen(row.source)) stolen_names.push_back(row.source);
  bool other = stolen_names.size() > kChartSeries;
  m.chart_series.assign(stolen_names.begin(), stolen_names.begin() + long(std::min(stolen_names.size(), kChartSeries)));
  if (other) m.chart_series.push_back("other");
  std::set<int> outliers;
  for (const auto& o : a.patterns.outliers) outliers.insert(o.run);
  const auto& matrix = a.matrix;
  for (size_t i = 0; i < matrix.runs(); ++i) {
    RunBar bar;
    bar.run = matrix.run_index[i];
    if (auto it = std::ranges::find(rec.samples, bar.run, &RunSample::index); it != rec.samples.end())
      bar.label = label_text(it->label);
    bar.wall_ns = matrix.wall_ns[i];
    bar.outlier = outliers.count(bar.run) > 0;
    bar.stolen_ns.assign(m.chart_series.size(), 0.0);
    for (const auto& s : matrix.sources) {
      if (s.kind != Kind::time || !stolen(s.name)) continue;
      auto it = std::find(m.chart_series.begin(), m.chart_series.end(), s.name);
      if (it != m.chart_series.end()) bar.stolen_ns[size_t(it - m.chart_series.begin())] += s.time_ns[i];
      else if (other && std::find(stolen_names.begin(), stolen_names.end(), s.name) != stolen_names.end())
        bar.stolen_ns.back() += s.time_ns[i];
    }
    m.runs.push_back(std::move(bar));
  }
  for (size_t i = 0; i < m.runs.size(); ++i) {
    double stolen_ns = 0;
    for (double v : m.runs[i].stolen_ns) stolen_ns += v;
    double own = std::max(0.0, m.runs[i].wall_ns - stolen_ns);
    m.baseline_ns = i == 0 ? own : std::min(m.baseline_ns, own);
  }
}

}  // namespace

ReportModel build_model(const RunRecord& rec, const Analysis& a) {
  ReportModel m;
  m.command = join_command(rec.command);
  m.headline = a.headline;
  m.summary = a.summary;
  for (const auto& run : rec.samples) m.warmups += run.warmup;
  if (rec.warmup_windows) {
    const auto processes =
        std::count_if(rec.process_runs.begin(), rec.process_runs.end(), [](const RunSample& p) { return !p.warmup; });
    m.repetitions = fmt::format("{} windows of {} process run{} + {} warm-up windows", m.summary.runs, processes,
                                processes == 1 ? "" : "s", m.warmups);
  } else {
    m.repetitions = fmt::format("{} runs + {} warm-up", m.summary.runs, m.warmups);
    if (rec.runs_auto && rec.runs_auto->reached && rec.runs_auto->achieved_percent)
      m.repetitions += fmt::format(" (--runs auto: median within ±{:.2f} %)", *rec.runs_auto->achieved_percent);
  }
  m.cpus = rec.pinned && !rec.cpus.empty() ? sys::format_cpulist(rec.cpus) : "not pinned";
  m.host = rec.host;
  m.warnings = a.warnings;
  m.failed = a.failed.has_value();
  m.rerun = shell_command(rec.command);
  if (m.failed) return m;  // the short report: headline, command, warnings
  m.unavailable = rec.unavailable;
  m.labels = label_rows(rec);
  if (rec.compare_sides) m.label_unit = "run";
  m.timeline = rec.timeline;
  if (!a.by_label.empty()) {
    for (const auto& b : a.by_label) {
      ReportModel block = build_model(b.record, b.analysis);
      block.label = b.label;
      block.html_id = fmt::format("-{}", m.blocks.size() + 1);
      block.unavailable.clear();  // the whole record's, shown once
      block.labels.clear();
      block.timeline.reset();  // the whole process run's: shown once
      m.blocks.push_back(std::move(block));
    }
    return m;
  }
  m.attributable = a.attribution.attributable;
  for (const auto& row : a.attribution.rows) m.sources.push_back(view_row(row));
  // As printed: a share that rounds to "-1 %" or below, or an interval that starts there.
  auto negative = [](double f) { return std::round(f * 100) < 0; };
  for (const auto& r : m.sources)
    m.negative_shares =
        m.negative_shares ||
        (m.attributable && (negative(r.share) || (!r.uncertain && r.share_low && negative(*r.share_low))));
  m.advice = advice_groups(a.recommendations);
  chart_runs(rec, a, m);
  return m;
}

}  // namespace nw::report
