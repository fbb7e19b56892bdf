// SPDX-License-Identifier: Apache-2.0
// Run-to-run variance of wall time -> noise sources (the model is documented in ATTRIBUTION.md).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/source_matrix.h"

namespace nw::report {

// Below this many measured runs the shares are shown but called unreliable, with no interval.
inline constexpr size_t kMinRunsToAttribute = 5;

// The most one event of a count-valued source can cost (ATTRIBUTION.md gives the reasoning). A
// fitted cost above it is a chance correlation with time the probes did not see: no share.
inline constexpr double kMaxMinorFaultNs = 250e3;  // allocating and zeroing a 2 MiB huge page
inline constexpr double kMaxMajorFaultNs = 25e6;   // one random read from a rotating disk, queued
inline constexpr double kMaxMigrationNs = 1e6;     // refilling 8 MiB of caches from memory
// An overlap (smt) is fitted per ns of overlap: the benchmark ran during it, so it cannot have lost
// more than the overlap itself.
inline constexpr double kMaxOverlapSlowdown = 1.0;
// The bound for one count source: `fault` takes the major-fault bound when the record has any.
double max_per_event_ns(const SourceSeries& s);

// An interval wider than this, and wider than the share itself, says nothing: "uncertain".
inline constexpr double kUncertainWidth = 0.10;
bool interval_uncertain(double share, double low, double high);

// One exact decomposition of Var(T) over a subset of runs (indices into the matrix, repeats
// allowed: the bootstrap passes resamples). shares[k] is for m.sources[k]; shares of all
// sources plus `unexplained` sum to 1.
struct Decomposition {
  bool valid = false;  // false when Var(T) is 0 or there are fewer than 2 runs
  double var_t = 0;
  std::vector<double> shares;
  std::vector<double> per_event_ns;  // estimated cost of one event (count-valued sources only; per
                                     // ns of overlap for an overlap source)
  double unexplained = 0;
  std::vector<double> residual;  // U minus the count-valued sources' estimated time, per run
};

// `rejected[s]` (when given) takes count-valued source s out of the regression: its fitted cost was
// implausible or not significant, so its share is 0 and its time stays in `unexplained`.
Decomposition decompose(const RunMatrix& m, std::span<const size_t> idx, const std::vector<bool>& rejected = {});

// How a row's time was obtained.
enum class RowKind {
  time,       // measured by the probes
  model,      // frequency, modelled from mean_khz
  count,      // events x a fitted cost per event
  remainder,  // `unexplained`
};

// The fitted cost per event of a count-valued source, and whether it was kept.
struct CostFit {
  double per_event_ns = 0;      // the fit that was judged
  double max_per_event_ns = 0;  // its physical bound
  bool plausible = true, significant = false;
  bool accepted() const { return plausible && significant; }
};

// One source's part of the variance (one row of every report).
struct AttributedSource {
  std::string source;
  Group group = Group::machine;
  RowKind kind = RowKind::time;
  double share = 0;                             // of Var(wall)
  std::optional<double> share_low, share_high;  // bootstrap interval
  bool uncertain = false;                       // the interval is too wide to mean anything
  double mean_time_ns = 0;                      // per measured run (0 for a refused fit)
  double mean_count = 0, max_ns = 0;
  std::optional<double> mean_overlap_ns;  // an overlap source (smt): its overlap per run; the
                                          // fit's per_event_ns is then the slowdown, per ns of it
  size_t runs_seen = 0;
  std::vector<int> inconsistent_runs;                // runs it took longer than (broken data)
  std::optional<CostFit> fit;                        // count-valued sources only
  nlohmann::json detail = nlohmann::json::object();  // what the probes said: pid(s), irq, ...
  double pct_of_run = 0;                             // mean_time_ns / (mean wall time x the run's CPUs)
};

struct AttributionResult {
  std::vector<AttributedSource> rows;  // sorted by share, `unexplained` included
  bool attributable = false;           // enough runs and variance for the shares to mean something
  std::string reason;                  // why not, when !attributable
  // Of the final decomposition (refused fits left out): Var(T) and the remainder U per run.
  double var_t = 0;
  std::vector<double> residual;
};

// Shares, means per run, bootstrap intervals (when there are enough runs).
AttributionResult attribute(const RunMatrix& m, const std::string& bench_comm);

}  // namespace nw::report
