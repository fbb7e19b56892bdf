#include "probes/counter_analysis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <stdexcept>

#include "stats/descriptive.h"

namespace nw::probes {

nw::CounterValue scale_count(uint64_t raw, uint64_t time_enabled_ns, uint64_t time_running_ns) {
  if (time_enabled_ns == 0) return {double(raw), raw, 1.0};  // never enabled: nothing to scale
  if (time_running_ns == 0) return {0.0, raw, 0.0};
  if (time_running_ns >= time_enabled_ns) return {double(raw), raw, 1.0};
  double scaling = double(time_running_ns) / double(time_enabled_ns);
  return {double(raw) / scaling, raw, scaling};
}

std::optional<double> effective_ghz(double aperf, double mperf, double tsc, uint64_t tsc_running_ns) {
  if (mperf <= 0 || tsc_running_ns == 0 || aperf < 0 || tsc <= 0) return std::nullopt;
  double tsc_ghz = tsc / double(tsc_running_ns);
  return tsc_ghz * aperf / mperf;
}

nw::CounterValue effective_ghz_counter(uint64_t aperf, uint64_t mperf, uint64_t tsc,
                                       uint64_t tsc_running_ns, double scaling) {
  auto ghz = effective_ghz(double(aperf), double(mperf), double(tsc), tsc_running_ns);
  if (!ghz || !(scaling > 0)) return {0.0, 0, 0.0};
  return {*ghz, uint64_t(std::llround(*ghz * 1e6)), scaling};
}

namespace {

// "amd64_fam19h_zen4::INST_RETIRED:ANY_P:u=1" -> "inst_retired"
std::string base_name(const std::string& key) {
  std::string s = key;
  if (auto p = s.rfind("::"); p != std::string::npos) s = s.substr(p + 2);
  if (auto p = s.find(':'); p != std::string::npos) s = s.substr(0, p);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return s;
}

const std::set<std::string>& aliases(CounterKind kind) {
  static const std::set<std::string> cycles{"cycles", "cpu-cycles", "perf_count_hw_cpu_cycles",
                                            "cycles_not_in_halt", "unhalted_core_cycles",
                                            "cpu_clk_unhalted", "cpu_cycles"};
  static const std::set<std::string> instructions{"instructions", "perf_count_hw_instructions",
                                                  "retired_instructions", "instruction_retired",
                                                  "inst_retired", "instructions_retired",
                                                  "inst_retired.any"};
  static const std::set<std::string> task_clock{"task-clock", "perf_count_sw_task_clock"};
  switch (kind) {
    case CounterKind::cycles: return cycles;
    case CounterKind::instructions: return instructions;
    default: return task_clock;
  }
}

}  // namespace

std::optional<double> find_counter(const CounterSet& c, CounterKind kind) {
  const auto& names = aliases(kind);
  for (const auto& [key, v] : c)
    if (counted(v) && names.count(base_name(key))) return v.value;
  return std::nullopt;
}

std::optional<double> ipc(const CounterSet& c) {
  auto ins = find_counter(c, CounterKind::instructions);
  auto cyc = find_counter(c, CounterKind::cycles);
  if (!ins || !cyc || *cyc <= 0) return std::nullopt;
  return *ins / *cyc;
}

SeriesStats series_stats(std::span<const double> x) {
  SeriesStats s;
  s.n = int(x.size());
  if (x.empty()) return s;
  s.mean = stats::mean(x);
  s.stddev = x.size() > 1 ? stats::stddev(x) : 0.0;
  s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0.0;
  auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

std::optional<IpcAcrossRuns> ipc_across_runs(std::span<const CounterSet> runs) {
  IpcAcrossRuns out;
  for (const auto& r : runs)
    if (auto v = ipc(r)) out.per_run.push_back(*v);
  if (out.per_run.empty()) return std::nullopt;
  out.stats = series_stats(out.per_run);
  return out;
}

std::map<std::string, CounterSummary> summarize_counters(std::span<const CounterSet> runs) {
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, CounterSummary> out;
  for (const auto& r : runs)
    for (const auto& [name, v] : r) {
      out[name];
      values[name];
    }
  for (auto& [name, summary] : out) {
    for (const auto& r : runs) {
      auto it = r.find(name);
      if (it == r.end() || !counted(it->second)) {
        ++summary.missing;
        continue;
      }
      values[name].push_back(it->second.value);
      summary.min_scaling = std::min(summary.min_scaling, it->second.scaling);
    }
    summary.stats = series_stats(values[name]);
  }
  return out;
}

VarianceSplit split_variance(std::span<const double> instructions, std::span<const double> cost,
                             SplitThresholds t) {
  if (instructions.size() != cost.size() || instructions.size() < 3)
    throw std::invalid_argument("variance split needs the same number (>= 3) of instruction and cost values");
  std::vector<double> log_i, log_c, log_cpi;
  for (size_t k = 0; k < cost.size(); ++k) {
    if (!(instructions[k] > 0) || !(cost[k] > 0))
      throw std::invalid_argument("variance split needs positive instruction and cost values");
    log_i.push_back(std::log(instructions[k]));
    log_c.push_back(std::log(cost[k]));
    log_cpi.push_back(log_c.back() - log_i.back());
  }
  VarianceSplit s;
  s.runs = int(cost.size());
  s.cv_instructions = series_stats(instructions).cv;
  s.cv_cost = series_stats(cost).cv;
  std::vector<double> cpi;
  for (size_t k = 0; k < cost.size(); ++k) cpi.push_back(cost[k] / instructions[k]);
  s.cv_cost_per_instruction = series_stats(cpi).cv;

  double var = stats::variance(log_c);
  if (var > 0) {
    s.workload_share = stats::covariance(log_c, log_i) / var;
    s.machine_share = stats::covariance(log_c, log_cpi) / var;
  }
  if (s.cv_cost < t.stable_cv)
    s.verdict = "stable";
  else if (s.workload_share >= t.dominant_share)
    s.verdict = "workload";
  else if (s.machine_share >= t.dominant_share)
    s.verdict = "machine";
  else
    s.verdict = "mixed";
  s.cost_counter = "cycles";
  return s;
}

std::optional<VarianceSplit> split_variance(std::span<const CounterSet> runs, SplitThresholds t) {
  for (auto [kind, label] : {std::pair{CounterKind::cycles, "cycles"},
                             std::pair{CounterKind::task_clock, "task-clock"}}) {
    std::vector<double> ins, cost;
    for (const auto& r : runs) {
      auto i = find_counter(r, CounterKind::instructions);
      auto c = find_counter(r, kind);
      if (i && c && *i > 0 && *c > 0) {
        ins.push_back(*i);
        cost.push_back(*c);
      }
    }
    if (ins.size() >= 3) {
      auto s = split_variance(ins, cost, t);
      s.cost_counter = label;
      return s;
    }
  }
  return std::nullopt;
}

std::vector<CounterSet> measured_counter_sets(const nw::RunRecord& rec) {
  std::vector<CounterSet> out;
  for (const auto* r : rec.measured()) out.push_back(r->counters);
  return out;
}

}  // namespace nw::probes
