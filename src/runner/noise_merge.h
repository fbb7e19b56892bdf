// SPDX-License-Identifier: Apache-2.0
// Per-CPU probe events of one repetition -> the run record's noise entries, one per source.
#pragma once
#include <vector>

#include "probes/noise_probe.h"
#include "record/run_record.h"

namespace nw::runner {

// Sums count and time per source across CPUs and tasks, keeps the longest event, and keeps
// the evidence: pids for preemption, IRQ numbers, migration paths with their counts, CPUs.
std::vector<NoiseEntry> merge_noise(const std::vector<probes::NoiseEvent>& events);
// A repetition's (or window's) noise from its events, with the figures read off it: migrations
// and blocking time.
void set_noise(RunSample& s, const std::vector<probes::NoiseEvent>& events);

}  // namespace nw::runner
