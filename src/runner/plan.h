// SPDX-License-Identifier: Apache-2.0
// What `noisewatch run` was asked to do, after option parsing and validation.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nw::runner {

// Per-benchmark knobs: they change the benchmark process only, never the machine. The held
// child applies them between fork and execve (held_child.cpp).
struct BenchmarkSetup {
  bool no_aslr = false;                    // --no-aslr: personality(ADDR_NO_RANDOMIZE), like setarch -R
  std::optional<int> fifo;                 // --fifo N: SCHED_FIFO at priority N
  std::optional<int> nice;                 // --nice N
  std::optional<uint64_t> timer_slack_ns;  // --timer-slack NS: prctl(PR_SET_TIMERSLACK), inherited
  bool clean_env = false;                  // --clean-env: only PATH, HOME and LANG=C (like env -i)
  std::vector<std::string> env;            // --env K=V, added last (they win)

  bool any() const { return no_aslr || fifo || nice || timer_slack_ns || clean_env || !env.empty(); }
};

// --windows and its variants: what in the benchmark is a repetition (src/runner/window_session.h).
struct WindowPlan {
  // --windows: every window the benchmark marks is a repetition. Set by every mode below too.
  bool on = false;
  // --windows-exec COMM: each process of the benchmark that execs COMM is a window, from its
  // execve to its exit. The kernel's name for it: at most 15 bytes.
  std::string exec;
  // --windows-at SYMBOL[@LIB]: every outermost call of the function is a window. `at` as given;
  // `call`, the function it names, once resolved (run_cli: before the run).
  std::string at;
  struct CallSite {
    std::string binary, symbol, shown;  // the file, its symbol-table name, demangled
    uint64_t file_offset = 0;           // its code's offset in the file (the uprobes' place)
  };
  std::optional<CallSite> call;
  // --windows NAME ("gbench", "hyperfine", "pyperf"): the harness whose repetitions are windows.
  // gbench (src/runner/gbench_windows.h): `call` is State::StartKeepRunning() and `call_close`
  // State::FinishKeepRunning(), where the window ends; the window is timed only between its
  // opener's `timer_start` (State::ResumeTiming()) and `timer_stop` (State::PauseTiming()), when
  // the library has them.
  std::string harness;
  std::optional<CallSite> call_close;
  std::optional<CallSite> timer_stop, timer_start;
  int warmup = 0;  // --warmup-windows N: the first N windows of every process run are warm-ups
};

struct Plan {
  std::vector<std::string> command;
  // Other commands a Schedule (session.h) may run in the same session (live compare: B).
  std::vector<std::vector<std::string>> alternatives;
  // The directory each command runs in, index-aligned (0: command, i: alternatives[i - 1]);
  // missing or "": noisewatch's own (bisect: each commit's work tree).
  std::vector<std::string> workdirs;
  std::vector<int> cpus;  // pin targets; empty with --no-pin
  bool pin = true;
  std::string cpu_reason;  // why these CPUs (printed and recorded)
  // How many process runs are measured (--runs), after `warmup` warm-up runs. ("runs" alone meant
  // three things: this count; the record's samples, RunRecord::samples, warm-ups included; and,
  // under --windows, the windows those samples are, beside the process runs, RunRecord::process_runs.)
  int measured_runs = 10;
  int warmup = 1;
  std::vector<std::string> events;  // libpfm4 event names (-e); empty = default set
  bool counters = true;
  BenchmarkSetup setup;
  WindowPlan windows;
  // A --windows mode without --runs or --warmup: the harness runs once, no warm-up run (it repeats
  // by itself); said in the first progress line.
  bool harness_runs_once = false;
  std::string timeline;                     // --timeline FILE (Chrome trace-event JSON)
  uint64_t timeline_threshold_ns = 10'000;  // --timeline-threshold
};

}  // namespace nw::runner
