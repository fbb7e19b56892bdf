#include "reports/model.h"

#include <algorithm>
#include <set>

#include "reports/advice.h"
#include "reports/sources.h"
#include "system/cpulist.h"

namespace nw::report {

namespace {

// Charts show at most this many sources by name; the rest is one "other" segment.
constexpr size_t kChartSeries = 6;

// The record may come from a file: read the engine's fields defensively, never throw on a type.
std::string string_at(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string{};
}

std::string join_command(const std::vector<std::string>& cmd) {
  std::string s;
  for (const auto& a : cmd) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

ReportModel build_model(const RunRecord& rec) {
  ReportModel m;
  m.command = join_command(rec.command);
  const auto& r = rec.report.is_object() ? rec.report : nlohmann::json::object();
  m.headline = string_at(r, "headline");
  m.attributable = r.contains("attributable") && r["attributable"].is_boolean() && r["attributable"].get<bool>();
  m.attribution_note = string_at(r, "attribution_note");
  m.workload = r.contains("workload") && r["workload"].is_object() ? r["workload"] : nlohmann::json::object();
  m.summary = rec.summary;
  for (const auto& run : rec.runs) m.warmups += run.warmup;
  m.cpus = rec.pinned && !rec.cpus.empty() ? sys::format_cpulist(rec.cpus) : "not pinned";
  m.cpu_reason = rec.cpu_reason;
  m.host = rec.host;
  m.warnings = rec.warnings;
  m.failed = r.contains("failed_before_measuring");
  m.rerun = shell_command(rec.command);
  const AdviceGroup headings[] = {
      {"Recommendations", "ranked by the share of the variance they address", false, {}},
      {"May reduce the unexplained part", "its cause is not measured: try one at a time and measure again", true, {}},
      {"About the measurement", "", false, {}}};
  for (const auto& rc : rec.recommendations) {
    auto t = size_t(tier_of(rc));
    if (m.advice.empty() || m.advice.back().title != headings[t].title) m.advice.push_back(headings[t]);
    m.advice.back().items.push_back(rc);
  }
  m.unavailable = rec.unavailable;
  m.lost_events = rec.lost_events;

  for (const auto& a : rec.attribution) {
    SourceRow row;
    row.source = a.source;
    row.description = describe_source(a.source);
    const auto& x = a.extra.is_object() ? a.extra : nlohmann::json::object();
    row.group = string_at(x, "group");
    if (row.group.empty()) row.group = a.source == "unexplained" ? "unexplained" : "machine";
    row.kind = string_at(x, "kind");
    if (row.kind.empty()) row.kind = a.source == "unexplained" ? "remainder" : "time";
    row.estimated = row.kind == "count" && x.contains("cost_significant") && x["cost_significant"].is_boolean() &&
                    x["cost_significant"].get<bool>();
    row.timed = row.kind != "remainder" && (row.kind != "count" || row.estimated);
    row.share = a.share;
    row.share_low = a.share_low;
    row.share_high = a.share_high;
    auto flag = [&](const char* key) { return x.contains(key) && x[key].is_boolean() && x[key].get<bool>(); };
    row.uncertain = flag("uncertain");
    row.inconsistent = x.contains("inconsistent_runs");
    row.mean_time_ns = a.mean_time_ns;
    row.pct_of_run = x.contains("pct_of_run") && x["pct_of_run"].is_number()
                         ? x["pct_of_run"].get<double>()
                         : (rec.summary.mean_ns > 0 ? a.mean_time_ns / rec.summary.mean_ns : 0.0);
    row.mean_count = a.mean_count;
    row.max_ns = a.max_ns;
    if (x.contains("per_event_ns") && x["per_event_ns"].is_number()) row.per_event_ns = x["per_event_ns"].get<double>();
    m.sources.push_back(std::move(row));
  }

  // Stolen time per run: measured time-valued sources except the benchmark's own off-CPU and
  // fault time (blocking, fault), in attribution order so the charts' colours match the table.
  auto matrix = collect_sources(rec);
  auto stolen = [](const std::string& s) { return s != "blocking" && s != "fault"; };
  std::vector<std::string> stolen_names;
  for (const auto& row : m.sources)
    if (row.kind == "time" && stolen(row.source)) stolen_names.push_back(row.source);
  bool other = stolen_names.size() > kChartSeries;
  m.chart_series.assign(stolen_names.begin(), stolen_names.begin() + long(std::min(stolen_names.size(), kChartSeries)));
  if (other) m.chart_series.push_back("other");
  std::set<int> outliers;
  if (r.contains("patterns") && r["patterns"].is_object() && r["patterns"].contains("outliers") &&
      r["patterns"]["outliers"].is_array())
    for (const auto& o : r["patterns"]["outliers"])
      if (o.is_object() && o.contains("run") && o["run"].is_number_integer()) outliers.insert(o["run"].get<int>());
  for (size_t i = 0; i < matrix.runs(); ++i) {
    RunBar bar;
    bar.run = matrix.run_index[i];
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
    double stolen = 0;
    for (double v : m.runs[i].stolen_ns) stolen += v;
    double own = std::max(0.0, m.runs[i].wall_ns - stolen);
    m.baseline_ns = i == 0 ? own : std::min(m.baseline_ns, own);
  }
  return m;
}

}  // namespace nw::report
