// SPDX-License-Identifier: Apache-2.0
// SVG charts drawn by noisewatch itself (no JavaScript library, no network): inline in the HTML.
#pragma once
#include <string>

#include "reports/model.h"

namespace nw::report {

// Colour of chart series i (the same colour in every chart and legend).
std::string series_color(size_t i, const std::string& name);
std::string escape_xml(const std::string& s);

// Per run: how much slower than the undisturbed time it was (grey) next to the stolen time by
// source (stacked), on one time axis, so the eye can match the two.
std::string runs_chart_svg(const ReportModel& m);
// Share of the variance per source, with the bootstrap interval as a whisker.
std::string shares_chart_svg(const ReportModel& m);

}  // namespace nw::report
