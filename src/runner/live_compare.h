// SPDX-License-Identifier: Apache-2.0
// `noisewatch compare [options] -- CMD_A ::: CMD_B`: both commands measured live on one CPU,
// interleaved in pairs of random order (A B, B A, ...: drift hits both alike), each repetition
// recorded with its noise exactly as `run` records it, until the sequential decision is known
// (compare/live_decision.h) or --max-runs pairs have run.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>

#include "compare/live_decision.h"
#include "compare/model.h"
#include "record/run_record.h"
#include "runner/plan.h"

namespace nw::runner {

using compare::Comparison;
using compare::Options;
using compare::SequentialDecision;

struct LiveRequest {
  Plan plan;               // command: A; alternatives: {B}; warmup: warm-ups per side
  size_t max_pairs = 100;  // --max-runs: runs per side at most
  size_t min_pairs = 0;    // --min-runs: no decision before this many pairs
  Options options;         // threshold, alpha, fail_above
  uint64_t seed = 0;       // the pairs' order; 0: random
  // When to stop, asked after every complete pair (before min_pairs too); default: as soon as
  // decide_pairs is not undecided.
  std::function<bool(const std::vector<compare::Pair>&)> decided;
  compare::PairTime pair_time = compare::PairTime::wall;  // what the pairs passed to `decided` hold
};

// After every complete pair: the decision so far (for progress lines).
using PairProgress = std::function<void(const SequentialDecision&, size_t max_pairs)>;

struct LiveRun {
  RunRecord record;        // both sides: runs labelled "A" / "B" with their pair; compare_sides
  int session_status = 0;  // run_session's: 0, a failing command's status, 130 after SIGINT
};
LiveRun run_live(const LiveRequest& request, const PairProgress& progress = {},
                 const std::function<void()>& ready = {});

// The comparison of a live record (also a saved one): the sequential decision as the wall-time
// result, the noise diff of the two sides, the disturbed runs with the decision without them, and
// when undecided what stood in the way. `session_status` != 0 records the failure.
Comparison live_comparison(const RunRecord& rec, const Options& options, size_t max_pairs, int session_status = 0);

// docs/contracts.md: 0 decided (and not slower beyond --fail-above), 1 decided slower beyond
// --fail-above, 2 undecided after --max-runs, 3 a command failed; 130 after SIGINT.
int live_exit_status(const Comparison& c, int session_status);

// The sources with the largest share of both sides' run-to-run variance (each side's attribution,
// weighted by its variance), at most `top`, with the first command of the advice that removes each.
std::vector<compare::Obstacle> find_obstacles(const RunRecord& rec, size_t top = 3);

}  // namespace nw::runner
