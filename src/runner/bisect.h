// SPDX-License-Identifier: Apache-2.0
// `noisewatch bisect --good REV --bad REV [--build CMD] -- BENCH`: which commit made the benchmark
// slower. Every commit it needs is checked out into a work tree of its own (the user's is never
// touched) and built there; the endpoints must first be "different, bad slower" by live compare's
// decision; then each tested commit M runs interleaved with the good build, and a confidence
// sequence for the median of log(M/good) decides whether M lies above or below half the endpoints'
// difference (bad or good). A step that stays across it after --max-runs pairs is noisy: skipped
// like a commit that does not build, never a coin flip. The first bad commit found is confirmed
// against its parent, which gives the change it brought.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compare/model.h"
#include "record/run_record.h"
#include "runner/plan.h"

namespace nw::runner {

struct BisectRequest {
  std::string repo = ".";          // --repo: a git work tree
  std::string good, bad;           // --good, --bad: revisions
  std::string build;               // --build: shell command run in each commit's work tree ("": none)
  Plan plan;                       // command: the benchmark (relative paths: the work tree's); cpus, warm-ups, setup
  size_t max_pairs = 60;           // --max-runs: pairs per step at most
  double alpha = 0.01;             // per step (--confidence 99)
  double threshold_percent = 1.0;  // the endpoints must differ by more than the equivalence margin
  std::string cache;               // --cache DIR: where the work trees go ("": ~/.cache/noisewatch)
  bool keep = false;               // --keep-worktrees
  uint64_t seed = 0;
};

struct BisectStep {
  std::string commit, subject;  // full hash, first line of its message
  std::string role;             // "endpoints" | "step" | "confirm"
  std::string verdict;          // good | bad | noisy | build failed | different | same | undecided | failed
  size_t pairs = 0;
  double ratio = 1, low = 0, high = 0;  // vs good (confirm: vs the parent); 0 / inf: unbounded
  std::string noise;                    // the source with the largest share of the step's variance ("" none)
  double seconds = 0;                   // build and measurement
};

struct BisectResult {
  // found | no-regression (the endpoints are the same) | undecided (endpoints, or the boundary) |
  // failed (an endpoint does not build, or the benchmark fails)
  std::string outcome;
  std::string first_bad, first_bad_subject, parent;
  std::optional<BisectStep> change;     // the confirmation: first bad against its parent
  std::vector<std::string> candidates;  // undecided boundary: the commits it could be
  std::vector<BisectStep> steps;
  std::vector<compare::Obstacle> obstacles;  // endpoints undecided: what stood in the way
  std::string message;                       // one line saying what it found
  size_t commits = 0;                        // between good (excluded) and bad (included)
  double seconds = 0;
  std::string cache;  // where the work trees were
};

using BisectProgress = std::function<void(const std::string& line)>;
BisectResult run_bisect(const BisectRequest& request, const BisectProgress& progress = {});

// docs/contracts.md: 0 found, 1 no regression between the endpoints, 2 undecided, 3 failed.
int bisect_exit_status(const BisectResult& r);

std::string render_bisect_text(const BisectResult& r);
nlohmann::json bisect_json(const BisectResult& r);

}  // namespace nw::runner
