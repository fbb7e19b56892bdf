// SPDX-License-Identifier: Apache-2.0
// A timeline recording -> the run record's compact summary (record/timeline_summary.h).
#pragma once
#include <string>

#include "record/timeline_summary.h"
#include "timeline/recording.h"

namespace nw::timeline {

// Events kept in memory for one session; past it they are counted as dropped.
inline constexpr size_t kMaxEvents = 2'000'000;
// The longest events the summary keeps with their times (for the report's timeline chart).
inline constexpr size_t kSummaryMarks = 400;

// Appends one process run's events (tagging them with it), up to kMaxEvents in all.
void add_events(Recording& rec, std::vector<Event>&& events, int process_run);

// Per span (process run or window) the events in it per source; the longest events with their
// offsets from their process run's start.
TimelineSummary summarize(const Recording& rec, const std::string& file, size_t marks = kSummaryMarks);

}  // namespace nw::timeline
