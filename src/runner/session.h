// SPDX-License-Identifier: Apache-2.0
// One `noisewatch run`: load the probes, run the repetitions, and build the run record.
#pragma once
#include <functional>
#include <optional>

#include "record/run_record.h"
#include "runner/plan.h"

namespace nw::runner {

struct SessionResult {
  RunRecord record;
  int exit_status = 0;  // docs/contracts.md: first failing repetition's status, 130 after SIGINT
};

// Called after each repetition (for progress lines).
using Progress = std::function<void(const RunSample&, int total)>;

// One repetition to run: which command (0: plan.command, i: plan.alternatives[i - 1]), whether it
// is a warm-up, and what the record says of it (live compare: its side and its pair).
struct Step {
  size_t command = 0;
  bool warmup = false;
  nlohmann::json label = nullptr;
  std::optional<int> pair;
};
// Asked before every repetition, with the record so far: the next one, or nullopt to stop. Without
// one, plan.warmup warm-ups then plan.measured_runs runs of plan.command.
using Schedule = std::function<std::optional<Step>(const RunRecord& so_far)>;

// `ready` is called once the probes are attached, before the first repetition.
SessionResult run_session(const Plan& plan, const Progress& progress = {}, const std::function<void()>& ready = {},
                          const Schedule& schedule = {});

}  // namespace nw::runner
