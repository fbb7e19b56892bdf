// SPDX-License-Identifier: Apache-2.0
// --windows around a session: the marker fd, the USDT attachment, and reading what one process
// run marked. The kernel side (bpf/windows.bpf.h) does the marking itself.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <utility>  // Boost 1.74 asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>

#include "probes/window_markers.h"
#include "record/run_record.h"
#include "runner/plan.h"
#include "runner/pyperf_windows.h"

namespace nw::runner {

// What one --windows-at window costs the benchmark: a uprobe at the function's entry and one at
// its return, measured on this project's VMs (bench/RESULTS.md: 21.6-23.5 us;
// an uprobe is a trap, far cheaper on bare metal). Windows shorter than 100 times that are warned
// about: the probes' own time is then a visible part of them.
inline constexpr uint64_t kCallWindowCostNs = 22'000;

// The environment variable that tells the benchmark which fd to write its marker lines to.
inline constexpr const char* kMarkerFdEnv = "NOISEWATCH_MARKER_FD";

// Counts the marker lines in what the benchmark wrote to the marker fd ("begin", "begin LABEL",
// "end"); `rest` keeps an unfinished last line for the next call.
size_t count_marker_lines(std::string& rest, const std::string& chunk);

class WindowSession {
 public:
  // With `exec_comm` (--windows-exec), nothing to attach: the probe's exec and exit programs cut
  // the windows. Else attaches the USDT markers of `binary` when it has them, or creates the
  // marker pipe: its write end is inherited by the benchmark, its number in
  // $NOISEWATCH_MARKER_FD (set in noisewatch's own environment, which the benchmark inherits),
  // and its writes are watched.
  // With a resolved --windows-at function, attaches its uprobes; with --windows gbench, the
  // uprobes of Google Benchmark's State, and sets BENCHMARK_OUT (and _FORMAT) for its JSON output
  // unless the command or the environment gives them. With --windows pyperf, reads pyperf's JSON
  // output (the command's -o or --append FILE) before and after each process run to name its windows.
  WindowSession(probes::WindowMarkers& markers, const std::string& binary, const Plan& plan);
  ~WindowSession();
  WindowSession(const WindowSession&) = delete;
  WindowSession& operator=(const WindowSession&) = delete;

  // Before a process run (nothing tracked): forget the last run's windows; while it runs, empty
  // the pipe once a second so a benchmark that marks many windows never blocks on it.
  // `root`: the process run's root process (its pid before its execve).
  void arm(boost::asio::io_context& io, pid_t root);
  // After it: the windows it marked, and warnings about its marker lines.
  probes::WindowReadout finish(boost::asio::io_context& io, std::vector<std::string>& warnings, int process_run);
  // --windows gbench, --windows pyperf: the harness's JSON output it reads ("" when none).
  std::string harness_output() const { return gbench_ ? gbench_out_ : pyperf_ ? pyperf_->path() : std::string(); }
  // The error for a process run that marked no window: how to mark one.
  std::string no_window_message(int process_run) const;
  // --windows-at: a warning when the measured windows are short beside the uprobes' cost.
  std::optional<std::string> cost_warning(const std::vector<RunSample>& runs) const;

 private:
  void drain_pipe();
  void on_tick(const boost::system::error_code& ec);
  // --windows gbench: names this process run's windows from the JSON output it wrote.
  void name_gbench(probes::WindowReadout& r, std::vector<std::string>& warnings, int process_run) const;
  probes::WindowMarkers& markers_;
  int read_fd_ = -1, write_fd_ = -1;
  bool usdt_ = false;
  std::string usdt_why_;
  std::string exec_comm_;
  bool exec_as_root_ = false;           // --windows pyperf
  std::optional<PyperfNaming> pyperf_;  // --windows pyperf: names its windows from its JSON output
  std::string call_;                    // --windows-at: the function, demangled
  // --windows gbench: the JSON file Google Benchmark writes, whether noisewatch made it (and
  // removes it at the end), and its modification time before the process run (a file not
  // written again is the last run's).
  bool gbench_ = false;
  std::string gbench_out_;
  bool gbench_own_out_ = false;
  struct timespec gbench_mtime_ {};
  std::string rest_;
  size_t lines_ = 0;
  std::unique_ptr<boost::asio::steady_timer> timer_;
};

}  // namespace nw::runner
