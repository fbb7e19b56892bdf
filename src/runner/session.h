// One `noisewatch run`: load the probes, run the repetitions, and build the run record.
#pragma once
#include <functional>

#include "record/run_record.h"
#include "runner/plan.h"

namespace nw::runner {

struct SessionResult {
  RunRecord record;
  int exit_status = 0;  // docs/contracts.md: first failing repetition's status, 130 after SIGINT
};

// Called after each repetition (for progress lines).
using Progress = std::function<void(const RunSample&, int total)>;

// `ready` is called once the probes are attached, before the first repetition.
SessionResult run_session(const Plan& plan, const Progress& progress = {},
                          const std::function<void()>& ready = {});

}  // namespace nw::runner
