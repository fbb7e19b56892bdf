// What the report engine concluded about one run record, as types: analyze() computes it once,
// the format-neutral model and the JSON serialiser read it. Nothing here is JSON but the probes'
// free-form detail of a source, passed through.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/attribution.h"
#include "reports/narrative.h"
#include "reports/neighbours.h"
#include "reports/patterns.h"
#include "reports/source_matrix.h"
#include "reports/workload.h"

namespace nw::report {

struct Analysis {
  Summary summary;
  // Set when the benchmark failed before any measured run: nothing else below is computed.
  std::optional<FailedStart> failed;
  std::string headline;
  RunMatrix matrix;  // per-run series of every source (the charts draw them)
  AttributionResult attribution;
  std::vector<NeighbourLead> leads;  // likely causes of `unexplained`, outside the attribution
  Patterns patterns;
  WorkloadSplit split;
  std::vector<Recommendation> recommendations;
  std::vector<std::string> warnings;         // to show: the runner's own, then the engine's
  std::vector<std::string> engine_warnings;  // the engine's alone (so a re-analysis can replace them)
};

}  // namespace nw::report
