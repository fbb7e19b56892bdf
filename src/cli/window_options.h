// SPDX-License-Identifier: Apache-2.0
// The run options of windows and the timeline: --windows, --windows-exec, --windows-at, --warmup-windows,
// --timeline, --timeline-threshold (docs/contracts.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "runner/plan.h"

namespace nw::cli {

// As given on the command line.
struct WindowArgs {
  std::string windows;  // "": not given; "marks": --windows alone; else a harness: --windows gbench
  std::string windows_exec;
  std::string windows_at;
  std::optional<int> warmup_windows;
  std::string timeline;
  std::string threshold;
};

// The harnesses --windows NAME knows (besides the benchmark's own marks).
inline constexpr const char* kWindowHarnesses[] = {"gbench", "hyperfine", "pyperf"};

void add_window_options(CLI::App& sub, WindowArgs& args);
// Validates them into the plan; throws nw::Error with what to do.
void apply_window_options(runner::Plan& p, const WindowArgs& args);
// --windows-exec's argument as the kernel names the process: the file name of a path, cut to the
// 15 bytes of a task's comm. Throws nw::Error for an empty name.
std::string exec_window_comm(const std::string& arg);
// "10us", "1.5ms", "800ns", or a bare number of microseconds -> ns; throws nw::Error.
uint64_t parse_threshold_ns(const std::string& text);

}  // namespace nw::cli
