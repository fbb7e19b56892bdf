// SPDX-License-Identifier: Apache-2.0
// Live compare's statistics on a record of interleaved pairs (`compare -- A ::: B`): the
// sequential decision, the runs one source disturbed, and what kept the answer open. Pure
// functions of the record, so a saved record gives the same answer as the run that wrote it.
#pragma once
#include <set>
#include <vector>

#include "compare/model.h"
#include "record/run_record.h"
#include "stats/sequential.h"

namespace nw::compare {

// The two sides' labels in a live record (RunSample::label).
inline constexpr const char* kSideA = "A";
inline constexpr const char* kSideB = "B";

// What a pair's sides are timed by: their wall times, or their undisturbed times (wall less the
// time noise stole from each run, as compare's adjusted comparison: undisturbed_times). Bisect
// asks whether the code changed, so it decides on the undisturbed times: a task that takes the
// benchmark's CPU in one run of a pair is the machine's doing, not the commit's.
enum class PairTime { wall, undisturbed };

// A measured pair whose A and B runs both completed, in the order the pairs ran.
struct Pair {
  int index = 0;
  double a_ns = 0, b_ns = 0;
};
std::vector<Pair> complete_pairs(const RunRecord& rec, PairTime time = PairTime::wall);

// The decision on log(B/A) of each pair (stats/sequential.h: a confidence sequence for its
// median, looked at after every pair), against the equivalence margin log(1 + threshold).
// Pairs whose index is in `leave_out` are skipped.
SequentialDecision decide_pairs(const std::vector<Pair>& pairs, double threshold_percent, double alpha,
                                const std::set<int>& leave_out = {});

// Runs one source disturbed far beyond the others: its time in the run exceeds its lower quartile
// over every measured run by both the equivalence margin (threshold % of the median run) and ten
// times the spread of its quiet runs (lower quartile minus 10th percentile). The largest such
// source names the run; at most one entry per run.
std::vector<DisturbedRun> find_disturbed(const RunRecord& rec, double threshold_percent);

// Where a decision's interval of B/A lies against the ratio exp(log_value): wholly above, wholly
// below, or across it (bisect and compare --git-bisect: a commit against half the regression).
stats::Side side_of(const SequentialDecision& d, double log_value);

// The interval as progress lines and the bisect log show it: "1.0120–1.0480", "…" for an
// unbounded side.
std::string interval_text(double low, double high);

}  // namespace nw::compare
