// Advice for a --windows record: its repetitions are windows, so the noisewatch commands the
// advice gives must keep --windows, ask for warm-up windows, and count process runs.
#pragma once
#include <vector>

#include "record/run_record.h"

namespace nw::report {

// Whether the record's runs are marked windows (--windows).
bool is_windows_record(const RunRecord& rec);
// Rewrites the noisewatch command lines of `recs` for a windows record.
void adapt_to_windows(const RunRecord& rec, std::vector<Recommendation>& recs);

}  // namespace nw::report
