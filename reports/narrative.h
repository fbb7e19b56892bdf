// The sentences of a report: headline and warnings, written once so every format agrees.
#pragma once
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/attribution.h"
#include "reports/patterns.h"
#include "reports/workload.h"

namespace nw::report {

struct NarrativeInput {
  const RunRecord& rec;
  const AttributionResult& attribution;
  const Patterns& patterns;
  const WorkloadSplit& split;
};

// "CV 2.72 % over 10 runs — 71 % of the variance comes from preemption by stress-ng"
std::string headline(const NarrativeInput& in);
std::vector<std::string> warnings(const NarrativeInput& in);

}  // namespace nw::report
