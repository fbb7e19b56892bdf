// SPDX-License-Identifier: Apache-2.0
// --windows pyperf: each of pyperf's worker processes is a window (the probe cuts them from fork to
// exit, window_markers.cpp); pyperf's own JSON output (-o FILE or --append FILE in the command)
// then names them after the benchmark each worker ran and says how long pyperf timed it inside the
// worker (its run's metadata `duration`). The window is longer by the interpreter's start-up,
// pyperf's import and its exit, which that clock does not see.
//
// pyperf (2.x, pyperf/_manager.py) runs its workers one after another and adds each worker's run to
// its benchmark's `runs` in that order; a worker that only calibrates the loops or warm-ups writes
// a run with warm-ups and no values (pyperf leaves it out of its results). Those workers are the
// harness's own, as Google Benchmark's iteration search is: warm-up windows.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/window_markers.h"

namespace nw::runner {

// The JSON file a pyperf command writes (-o FILE, -oFILE, --output FILE, --output=FILE) or adds its
// runs to (--append FILE, --append=FILE). The option's exact spellings only: argparse's prefixes
// (--out) are not recognised.
struct PyperfOutput {
  std::string path;
  std::string option;  // "-o", "--output" or "--append", as the command gives it
  bool append = false;
};
std::optional<PyperfOutput> pyperf_output_in_command(const std::vector<std::string>& command);

// One worker's run as pyperf's JSON keeps it. Its metadata is the file's, its benchmark's and its
// own, each overriding the one before (pyperf moves what all runs share up a level).
struct PyperfRun {
  std::string benchmark;                // metadata "name"
  bool calibration = false;             // no values: it calibrated the loops or warm-ups
  std::optional<uint64_t> duration_ns;  // metadata "duration" (seconds in the file)
  std::string date;                     // metadata "date": when the worker ran ("2026-12-04 19:05:34.162553")
};

// Every run of a pyperf JSON, benchmark by benchmark and in each benchmark's order. Throws
// nw::Error when it is not one (no "benchmarks" list, a benchmark without a name or runs).
std::vector<PyperfRun> pyperf_runs(const nlohmann::json& suite);

// The runs in `after` that `before` (the same file earlier; empty: there was none) did not have:
// pyperf adds a process run's runs at the end of their benchmark's list. They are returned in the
// order the workers ran: by their dates where every run has one (a script with several benchmarks
// runs each one's workers in turn, and --append keeps the file's benchmark order), else in the
// file's order.
std::vector<PyperfRun> pyperf_new_runs(const std::vector<PyperfRun>& before, const std::vector<PyperfRun>& after);

// Pairs the process run's worker windows with the runs its workers added, in order: each window
// gets its run's benchmark name (text_label), its duration, and is a harness warm-up when the run
// only calibrated. False, leaving the windows as they are, when the counts differ.
bool name_pyperf_windows(std::vector<probes::WindowMark>& windows, const std::vector<PyperfRun>& runs);

// pyperf's JSON file as it is on disk (gzip when its name ends in .gz): its runs, or nullopt when
// the file does not exist. Throws nw::Error when it cannot be read or is not pyperf's JSON.
std::optional<std::vector<PyperfRun>> read_pyperf_runs(const std::string& path);

// Names one process run's windows from the runs its workers added to the command's pyperf JSON
// output (read before the process run and after it). Whatever goes wrong (no output in the
// command, a file that cannot be read, counts that differ) keeps the windows, labelled with the
// program's name, and says so in a warning: it never fails the run.
class PyperfNaming {
 public:
  explicit PyperfNaming(const std::vector<std::string>& command) : out_(pyperf_output_in_command(command)) {}
  // The file read ("" when the command names none).
  std::string path() const { return out_ ? out_->path : std::string(); }
  // Before the process run: the file's runs then.
  void before();
  // After it: names `windows` (those of process run `process_run`, 0-based).
  void name(std::vector<probes::WindowMark>& windows, std::vector<std::string>& warnings, int process_run) const;

 private:
  std::optional<PyperfOutput> out_;
  std::vector<PyperfRun> before_;
  std::string before_error_;  // the file could not be read before the process run
};

}  // namespace nw::runner
