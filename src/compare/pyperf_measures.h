// SPDX-License-Identifier: Apache-2.0
// pyperf's JSON beside a --windows pyperf record: the two time different things. pyperf's values
// are the time per loop of the benchmarked code; a window is a whole worker process, from its fork
// to its exit: the interpreter's start-up, pyperf's import and its exit included (on this
// project's VMs they are more than half of a `timeit` worker's window). What both have is each
// worker run's `duration` as pyperf timed it inside the worker (its warm-ups and values and the
// metadata it collects): the JSON's runs carry it, and a --windows pyperf record copies it into
// each window (harness_duration_ns). So a pyperf JSON and such a record are compared on it, on
// both sides, and the comparison says so. Two --windows pyperf records compare their windows, as
// any two records do, and are told that the start-up in every window dilutes a change.
#pragma once
#include <string>
#include <vector>

#include "compare/input.h"

namespace nw::compare {

// Whether `in` is a --windows pyperf record.
bool is_pyperf_windows_record(const InputFile& in);

// When one side is pyperf's JSON and the other a --windows pyperf record, the benchmarks of both
// that have the same name are compared on their runs' durations (times_ns replaced by
// run_durations_ns), with a warning saying so. Throws nw::Error when such a benchmark has no
// duration on a side (a record whose windows were not paired with pyperf's runs, an older pyperf).
// With two --windows pyperf records, only the warning.
void align_pyperf_measures(InputFile& base, InputFile& next, std::vector<std::string>& warnings);

}  // namespace nw::compare
