// SPDX-License-Identifier: Apache-2.0
// The timeline chart of the HTML report: one row per process run, its windows (or the run) as
// bands, and the longest noise events at the time they struck, coloured like the other charts.
// Drawn from the record's timeline summary (--timeline), without the trace file.
#pragma once
#include <string>
#include <vector>

#include "record/timeline_summary.h"

namespace nw::report {

// Process runs drawn at most; the rest are left out, and the chart says so.
inline constexpr size_t kTimelineRows = 40;

// `series` are the other charts' series (ReportModel::chart_series): a source among them has
// its colour there; any other source gets the "other" colour.
std::string timeline_svg(const TimelineSummary& t, const std::vector<std::string>& series);
// Sources in the chart, in legend order, with their colours.
std::vector<std::pair<std::string, std::string>> timeline_legend(const TimelineSummary& t,
                                                                 const std::vector<std::string>& series);

}  // namespace nw::report
