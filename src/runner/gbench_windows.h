// SPDX-License-Identifier: Apache-2.0
// --windows gbench: each repetition of a Google Benchmark binary is a window, with no change to
// the benchmark. The probe opens a window where the library starts timing a State
// (State::StartKeepRunning) and ends it where it stops (State::FinishKeepRunning), labelled with
// the State's iteration count; the library's own JSON output (--benchmark_out, or the
// BENCHMARK_OUT variable that noisewatch sets) then says which of those were the repetitions it
// reported and names them. The other States (warm-up, the search for an iteration count) are the
// harness's own: kept as warm-up windows.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/window_markers.h"

namespace nw::runner {

// Exported by libbenchmark 1.7.1 (Debian 12) and by every release since; `max_iterations` is at
// this offset of State in both (after total_iterations_ and batch_leftover_, two int64).
inline constexpr const char* kGbenchStart = "benchmark::State::StartKeepRunning()";
inline constexpr const char* kGbenchFinish = "benchmark::State::FinishKeepRunning()";
// Where a State's timer stops and starts again (the benchmark's PauseTiming()/ResumeTiming(), and
// the library's own calls of them in StartKeepRunning and FinishKeepRunning): a window's gaps.
inline constexpr const char* kGbenchPause = "benchmark::State::PauseTiming()";
inline constexpr const char* kGbenchResume = "benchmark::State::ResumeTiming()";
inline constexpr int kGbenchIterationsOffset = 16;
// Google Benchmark reads a flag it is not given from BENCHMARK_<FLAG> (1.5 and later).
inline constexpr const char* kGbenchOutEnv = "BENCHMARK_OUT";
inline constexpr const char* kGbenchOutFormatEnv = "BENCHMARK_OUT_FORMAT";

// One repetition as Google Benchmark reports it (run_type "iteration").
struct GbenchRun {
  std::string name;        // "BM_Sort/1024", the name its reports give
  int64_t iterations = 0;  // across all its threads
  int threads = 1;
  // The time it measured for the repetition, real_time (per iteration, in time_unit) x iterations:
  // with threads, the mean of their timers; with UseManualTime, what the benchmark reported. 0: not given.
  double timed_ns = 0;
};

// The repetitions of a Google Benchmark JSON output, in its order; runs that failed
// (error_occurred) and aggregates are left out. Throws nw::Error when it is not one.
std::vector<GbenchRun> gbench_runs(const nlohmann::json& out);

// Names the windows of one process run after `runs`: the repetitions of one benchmark take as many
// consecutive windows, in order, whose iteration count times its threads is theirs; where several
// places fit (a warm-up State, or another benchmark's search, can have the same count), the one
// whose durations are nearest the times the library measured. The windows no run took are the
// harness's (WindowMark::harness_warmup). Returns how many runs found no window.
size_t name_gbench_windows(std::vector<probes::WindowMark>& windows, const std::vector<GbenchRun>& runs);

// The JSON file the command asks Google Benchmark to write (--benchmark_out FILE), if it does;
// nullopt: noisewatch sets BENCHMARK_OUT itself. Throws nw::Error when the command asks for
// another format (--benchmark_out_format console or csv).
std::optional<std::string> gbench_out_in_command(const std::vector<std::string>& command);

}  // namespace nw::runner
