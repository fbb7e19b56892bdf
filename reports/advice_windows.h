// SPDX-License-Identifier: Apache-2.0
// Advice for a --windows record: its repetitions are windows, so the noisewatch commands the
// advice gives must keep --windows, ask for warm-up windows, and count process runs.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"

namespace nw::report {

// Whether the record's runs are marked windows (--windows).
bool is_windows_record(const RunRecord& rec);
// The benchmark's command with the harness's own repetition count set to `n` (its option replaced,
// or added): Google Benchmark's --benchmark_repetitions, hyperfine's --runs, pyperf's --processes.
// A harness repeats by itself, so more windows are more of its repetitions, not more runs of it.
// nullopt for a harness it does not know.
std::optional<std::vector<std::string>> with_harness_repetitions(const std::string& harness,
                                                                 std::vector<std::string> command, int n);
// Rewrites the noisewatch command lines of `recs` for a windows record.
void adapt_to_windows(const RunRecord& rec, std::vector<Recommendation>& recs);

}  // namespace nw::report
