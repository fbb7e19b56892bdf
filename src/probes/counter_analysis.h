// Pure arithmetic on counter values, for the recorder and the report engine: scaling of
// multiplexed counts, effective frequency from APERF/MPERF, IPC and its spread across runs,
// and the split of run-to-run variance into "the workload did different work" versus
// "the machine ran the same work at a different speed".
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "record/run_record.h"

namespace nw::probes {

// One repetition's counters, keyed by event name (RunSample::counters).
using CounterSet = std::map<std::string, nw::CounterValue>;

// Multiplexing: the kernel counted the event for time_running out of time_enabled, so the
// estimate is raw * enabled / running. A counter that was enabled but never got onto the PMU
// (running == 0) has no estimate: value 0 with scaling 0, which every function below treats as
// "not counted", not as a count of zero.
nw::CounterValue scale_count(uint64_t raw, uint64_t time_enabled_ns, uint64_t time_running_ns);

// True when the value is an actual measurement (see scale_count).
inline bool counted(const nw::CounterValue& v) { return v.scaling > 0; }

// Effective (busy) frequency, as turbostat computes it: TSC rate * APERF / MPERF. `tsc` ticks
// were counted during `tsc_running_ns` of the task's run time, which gives the TSC rate.
// nullopt when a denominator is zero.
std::optional<double> effective_ghz(double aperf, double mperf, double tsc, uint64_t tsc_running_ns);

// The "effective-ghz" counter value of one run from the raw reads of the msr group (one group,
// so the three share their time slices): GHz in `value`, kHz in `raw`, `scaling` passed
// through. Not counted (scaling 0) when the frequency cannot be computed or scaling is 0.
nw::CounterValue effective_ghz_counter(uint64_t aperf, uint64_t mperf, uint64_t tsc,
                                       uint64_t tsc_running_ns, double scaling);

// The well-known counters under whatever name they were requested: "cycles", "cpu-cycles",
// "perf::PERF_COUNT_HW_CPU_CYCLES:u", "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT"...
enum class CounterKind { cycles, instructions, task_clock };
std::optional<double> find_counter(const CounterSet& c, CounterKind kind);

// Instructions per cycle of one run; nullopt without both counters.
std::optional<double> ipc(const CounterSet& c);

struct SeriesStats {
  int n = 0;
  double mean = 0, stddev = 0, cv = 0, min = 0, max = 0;  // cv is a fraction; sample stddev
};
SeriesStats series_stats(std::span<const double> x);

struct IpcAcrossRuns {
  std::vector<double> per_run;  // runs that lack either counter are skipped
  SeriesStats stats;
};
// nullopt when no run has both instructions and cycles.
std::optional<IpcAcrossRuns> ipc_across_runs(std::span<const CounterSet> runs);

// Per-counter mean/CV over runs (for the run summary), with the worst multiplexing seen.
struct CounterSummary {
  SeriesStats stats;
  double min_scaling = 1.0;  // < 1: multiplexed in at least one run
  int missing = 0;           // runs where the counter was absent or never counted
};
std::map<std::string, CounterSummary> summarize_counters(std::span<const CounterSet> runs);

// Variance split. With cycles C = I * CPI per run, log C = log I + log CPI, and
//   Var(log C) = Cov(log C, log I) + Cov(log C, log CPI)
// exactly (the same covariance decomposition the attribution of wall time uses). The first
// share is the workload's (it executed a different number of instructions), the second the
// machine's (same instructions, different cycles per instruction: frequency, caches, memory,
// SMT, ...). Logs make the shares independent of units and of the run's length. A share can
// fall outside [0, 1] when instructions and CPI move against each other; they always sum to 1.
// `cost` is cycles or, when those were not counted, task-clock ns (then "machine" also
// includes frequency changes, which cycles are blind to).
struct VarianceSplit {
  int runs = 0;
  double cv_instructions = 0, cv_cost = 0, cv_cost_per_instruction = 0;
  double workload_share = 0, machine_share = 0;
  // "stable" when cost varies by less than stable_cv; "workload" or "machine" when that share
  // reaches dominant_share; otherwise "mixed".
  std::string verdict;
  std::string cost_counter;  // "cycles" or "task-clock"
};
struct SplitThresholds {
  double stable_cv = 0.005;
  double dominant_share = 0.7;
};
// Throws std::invalid_argument unless both series have the same length >= 3 and are positive.
VarianceSplit split_variance(std::span<const double> instructions, std::span<const double> cost,
                             SplitThresholds t = {});
// From recorded runs: instructions against cycles (or task-clock when there are no cycles).
// nullopt when fewer than 3 runs have both.
std::optional<VarianceSplit> split_variance(std::span<const CounterSet> runs, SplitThresholds t = {});

// The counter sets of a record's measured runs, in order.
std::vector<CounterSet> measured_counter_sets(const nw::RunRecord& rec);

}  // namespace nw::probes
