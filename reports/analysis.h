// SPDX-License-Identifier: Apache-2.0
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

struct LabelAnalysis;

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
  // Windows of several labels (reports/labels.h, split_labels): each label analysed alone, the
  // noisiest first. Then nothing above is computed across labels: the summary counts the windows,
  // the attribution and recommendations are empty and the headline says where the blocks are.
  std::vector<LabelAnalysis> by_label;
};

// One label's windows (record/window_labels.h, only_label) and their analysis. Its `warnings` are
// the engine's alone: the runner's are the whole record's, shown once.
struct LabelAnalysis {
  std::string label;
  RunRecord record;
  Analysis analysis;
};

}  // namespace nw::report
