// SPDX-License-Identifier: Apache-2.0
// The sentences of a report: headline and warnings, written once so every format agrees.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/attribution.h"
#include "reports/neighbours.h"
#include "reports/patterns.h"
#include "reports/workload.h"

namespace nw::report {

struct NarrativeInput {
  const RunRecord& rec;
  const AttributionResult& attribution;
  const Patterns& patterns;
  const WorkloadSplit& split;
  std::span<const NeighbourLead> leads = {};  // most correlated first
};

// The benchmark failed before any measured run succeeded (the runner stops at the first failing
// repetition): which repetition, and how it ended. Such a record gets a short report.
struct FailedStart {
  int run = 0;  // RunSample::index
  bool warmup = false;
  int exit_status = 0;
  std::optional<int> signal;
  std::string headline;  // "The benchmark failed before any measured run: ..."
};
std::optional<FailedStart> failed_start(const RunRecord& rec);

// "CV 2.72 % over 10 runs — 71 % of the variance comes from preemption by stress-ng"
std::string headline(const NarrativeInput& in);
std::vector<std::string> warnings(const NarrativeInput& in);

}  // namespace nw::report
