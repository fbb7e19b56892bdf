// SPDX-License-Identifier: Apache-2.0
// `noisewatch tune prove -- CMD`: the benchmark as the machine is, then tuned, then the machine
// restored, and the two halves compared with the compare engine.
#pragma once
#include <string>
#include <vector>

#include "compare/model.h"
#include "record/run_record.h"
#include "tune/apply.h"

namespace nw::tune {

struct ProveArgs {
  std::vector<std::string> command;
  std::string cpu, only, skip, journal, json;
  int runs = 10, warmup = 1;
  bool quiet = false;
};

// Returns the exit status (docs/contracts.md, `run`): the halves' benchmark status, 130 after
// SIGINT, 1 when the tuning could not be fully restored.
int prove(const ProveArgs& a);

// The summary printed above the comparison: CV before and after, the median change, the noise
// sources that disappeared (by which knob, or by themselves), appeared, and what the tuning did.
std::string render_proof(const RunRecord& before, const RunRecord& after, const compare::Comparison& c,
                         const ApplyResult& tuning);

}  // namespace nw::tune
