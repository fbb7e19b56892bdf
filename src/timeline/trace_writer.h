// SPDX-License-Identifier: Apache-2.0
// A timeline recording as Chrome trace-event JSON (the "JSON Object Format" that Perfetto UI and
// chrome://tracing load): one track per CPU with the noise events as slices, and the benchmark's
// process runs, windows and blocking spans on tracks of their own.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "timeline/recording.h"

namespace nw::timeline {

// Track ids: CPU tracks are pid kCpuPid, tid = CPU; the benchmark's are pid kBenchPid.
inline constexpr int kCpuPid = 1;
inline constexpr int kBenchPid = 2;
inline constexpr int kRunsTid = 1, kWindowsTid = 2, kBlockingTid = 3;

nlohmann::json trace_events(const Recording& rec, const std::string& command);
// Writes trace_events() to `path`; throws nw::Error saying what to do when it cannot.
void write_trace(const std::string& path, const Recording& rec, const std::string& command);

}  // namespace nw::timeline
