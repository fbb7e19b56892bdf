// SPDX-License-Identifier: Apache-2.0
// --windows: one process run's probe events and marked windows -> one run entry per window.
#pragma once
#include <string>
#include <vector>

#include "probes/noise_probe.h"
#include "probes/window_markers.h"
#include "record/run_record.h"

namespace nw::runner {

struct WindowSplit {
  std::vector<RunSample> windows;     // one per closed window, in marking order
  std::vector<std::string> warnings;  // windows left out or closed by the next begin, dropped ones
};

struct ProcessRunInfo {
  int process_run = 0;
  bool warmup = false;       // a --warmup process run: all its windows are warm-ups
  int warmup_windows = 0;    // --warmup-windows: the first N windows of every process run
  bool interrupted = false;  // SIGINT/SIGTERM during it: its windows are left out of statistics
  int first_index = 0;       // `index` of its first window in runs[]
};

// Each window gets the events charged while it was open (window key k + 1), its wall time
// between its markers less its gaps (--windows gbench: WindowMark::paused_ns, charged to no
// window), and the window-level fields only (RunSample::window). Noise charged
// outside every window is not any window's. An unclosed window is left out, with a warning.
WindowSplit split_windows(const std::vector<probes::NoiseEvent>& events, const probes::WindowReadout& marks,
                          const ProcessRunInfo& info);

// A marker-fd label as the record keeps it: a JSON integer when it is one, else the text.
nlohmann::json window_label(const probes::WindowMark& m);

}  // namespace nw::runner

namespace nw::runner {

// Files one process run of a --windows session: its windows into rec.samples (indexed from
// rec.samples.size()), their warnings into rec.warnings, and the process run itself, with its
// whole-process figures and all its noise, into rec.process_runs. Returns how many windows it
// had (0: nothing went into rec.samples).
size_t record_windows(RunRecord& rec, RunSample process, const std::vector<probes::NoiseEvent>& events,
                      const probes::WindowReadout& marks, int warmup_windows);

}  // namespace nw::runner
