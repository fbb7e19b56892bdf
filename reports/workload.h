// SPDX-License-Identifier: Apache-2.0
// Is the variance the workload's own (it did different work or chose to wait) or the machine's?
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/attribution.h"
#include "reports/source_matrix.h"

namespace nw::report {

struct WorkloadSplit {
  double machine = 0;                        // sum of the shares of machine sources (OS and hardware noise)
  double workload = 0;                       // blocking, faults, own threads + what follows the instruction count
  double unexplained = 0;                    // what is left of `unexplained` after the instruction count
  std::optional<double> instructions_cv;     // run-to-run CV of retired instructions
  std::optional<double> instructions_share;  // part of `unexplained` that follows instructions
  // CV of the benchmark's own CPU time (RunSample::own_cpu_ns); none when a run has no CPU time
  // (--windows: a window's CPU time is not measured, only its wall time).
  std::optional<double> cpu_time_cv;
  std::string verdict;  // "machine" | "workload" | "mixed" | "unexplained" | "none"
};

WorkloadSplit split_workload(const RunRecord& rec, const RunMatrix& m, const AttributionResult& a);

}  // namespace nw::report
