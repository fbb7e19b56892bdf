// SPDX-License-Identifier: Apache-2.0
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

nw::CounterValue effective_ghz_counter(uint64_t aperf, uint64_t mperf, uint64_t tsc, uint64_t tsc_running_ns,
                                       double scaling) {
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
  static const std::set<std::string> cycles{
      "cycles",           "cpu-cycles", "perf_count_hw_cpu_cycles", "cycles_not_in_halt", "unhalted_core_cycles",
      "cpu_clk_unhalted", "cpu_cycles"};
  static const std::set<std::string> instructions{
      "instructions", "perf_count_hw_instructions", "retired_instructions", "instruction_retired",
      "inst_retired", "instructions_retired",       "inst_retired.any"};
  static const std::set<std::string> task_clock{"task-clock", "perf_count_sw_task_clock"};
  switch (kind) {
    case CounterKind::cycles:
      return cycles;
    case CounterKind::instructions:
      return instructions;
    default:
      return task_clock;
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

}  // namespace nw::probes
