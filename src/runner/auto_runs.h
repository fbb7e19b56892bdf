// SPDX-License-Identifier: Apache-2.0
// `run --runs auto`: measure until the median is known within --precision (its confidence
// sequence, stats/sequential.h: valid however early it stops), --max-runs at most.
#pragma once
#include <vector>

#include "record/run_record.h"
#include "runner/session.h"

namespace nw::runner {

struct AutoRuns {
  double precision_percent = 1.0;  // --precision
  int max_runs = 200;              // --max-runs
  double alpha = 0.05;
};

// The measured runs' wall times so far, in order (those that exited 0 and were not interrupted).
std::vector<double> measured_walls(const RunRecord& rec);

// `warmup` warm-ups, then runs until the precision is reached or max_runs have run.
Schedule auto_schedule(int warmup, const AutoRuns& a);

// What the record says of it (docs/contracts.md: "runs_auto").
RunsAuto auto_summary(const RunRecord& rec, const AutoRuns& a);

}  // namespace nw::runner
