// Run-to-run variance of wall time -> noise sources (the model is documented in ATTRIBUTION.md).
#pragma once
#include <span>
#include <vector>

#include "record/run_record.h"
#include "reports/sources.h"

namespace nw::report {

// Below this many measured runs the shares are shown but called unreliable, with no interval.
inline constexpr size_t kMinRunsToAttribute = 5;

// One exact decomposition of Var(T) over a subset of runs (indices into the matrix, repeats
// allowed: the bootstrap passes resamples). shares[k] is for m.sources[k]; shares of all
// sources plus `unexplained` sum to 1.
struct Decomposition {
  bool valid = false;                 // false when Var(T) is 0 or there are fewer than 2 runs
  double var_t = 0;
  std::vector<double> shares;
  std::vector<double> per_event_ns;   // estimated cost of one event (count-valued sources only)
  double unexplained = 0;
  std::vector<double> residual;       // U minus the count-valued sources' estimated time, per run
};

Decomposition decompose(const RunMatrix& m, std::span<const size_t> idx);

struct AttributionResult {
  std::vector<Attribution> rows;  // sorted by share, `unexplained` included
  bool attributable = false;      // enough runs and variance for the shares to mean something
  std::string reason;             // why not, when !attributable
};

// Shares, means per run, bootstrap intervals (when there are enough runs).
AttributionResult attribute(const RunMatrix& m, const std::string& bench_comm);

}  // namespace nw::report
