// SPDX-License-Identifier: Apache-2.0
// CPU time (user + system) of NEW against BASE, where the inputs carry it: compared like wall
// time, and flagged when it points another way (wall +10 %, CPU -10 %: waiting, not computing).
#pragma once
#include <optional>

#include "compare/input.h"
#include "compare/model.h"

namespace nw::compare {

// Per-repetition CPU times on both sides give a full comparison; means only (hyperfine) give a
// ratio of means without a test; nothing when either side has no CPU time.
std::optional<CpuComparison> compare_cpu(const Benchmark& base, const Benchmark& next, const Options& o);

// -1, 0, +1: faster, unchanged, slower; from the verdict when tested, else from the ratio alone
// against the threshold.
int direction(const TimingResult& t, const Options& o);

// Wall and CPU time point different ways: tested verdicts that differ, or (without a test on a
// side) changes beyond the threshold in opposite directions.
bool cpu_disagrees(const TimingResult& wall, const TimingResult& cpu, const Options& o);

}  // namespace nw::compare
