// The run options of marked windows and the timeline: --windows, --warmup-windows,
// --timeline, --timeline-threshold (docs/contracts.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "runner/plan.h"

namespace nw::cli {

void add_window_options(CLI::App& sub, bool& windows, std::optional<int>& warmup_windows, std::string& timeline,
                        std::string& threshold);
// Validates them into the plan; throws nw::Error with what to do.
void apply_window_options(runner::Plan& p, bool windows, std::optional<int> warmup_windows, const std::string& timeline,
                          const std::string& threshold);
// "10us", "1.5ms", "800ns", or a bare number of microseconds -> ns; throws nw::Error.
uint64_t parse_threshold_ns(const std::string& text);

}  // namespace nw::cli
