// SPDX-License-Identifier: Apache-2.0
// Pure arithmetic on counter values, for the recorder: scaling of multiplexed counts, effective
// frequency from APERF/MPERF, and IPC. (How counters split the run-to-run variance between the
// workload and the machine is the report engine's: reports/workload.cpp.)
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
nw::CounterValue effective_ghz_counter(uint64_t aperf, uint64_t mperf, uint64_t tsc, uint64_t tsc_running_ns,
                                       double scaling);

// The well-known counters under whatever name they were requested: "cycles", "cpu-cycles",
// "perf::PERF_COUNT_HW_CPU_CYCLES:u", "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT"...
enum class CounterKind { cycles, instructions, task_clock };
std::optional<double> find_counter(const CounterSet& c, CounterKind kind);

// Instructions per cycle of one run; nullopt without both counters.
std::optional<double> ipc(const CounterSet& c);

}  // namespace nw::probes
