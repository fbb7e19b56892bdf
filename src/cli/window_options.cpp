// SPDX-License-Identifier: Apache-2.0
#include "cli/window_options.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "common/errors.h"
#include "runner/hyperfine_command.h"

namespace nw::cli {

void add_window_options(CLI::App& sub, WindowArgs& a) {
  sub.add_flag("--windows{marks}", a.windows,
               "every window the benchmark marks is a repetition: USDT noisewatch:window_begin/end "
               "(include/noisewatch/markers.h) or lines \"begin\"/\"end\" written to the fd in "
               "$NOISEWATCH_MARKER_FD; --runs still counts process runs. --windows gbench: each repetition of a "
               "Google Benchmark binary is one, named as its JSON output names it, no code change "
               "(noisewatch --windows gbench -- ./bm --benchmark_repetitions=20); only what the library times is "
               "in it: its time between PauseTiming() and ResumeTiming() is a gap, in neither the window's time "
               "nor its noise (->Threads(N): measured, kept in; UseRealTime: the same; UseManualTime: the window "
               "is still the timer's time, not the time the benchmark reports). --windows hyperfine: each run "
               "hyperfine times is one (--windows-exec with the program it benchmarks). --windows pyperf: each of "
               "pyperf's worker processes is one (the processes running the program the benchmark's first "
               "process runs), named after its benchmark and with pyperf's duration of its run when the "
               "command has -o FILE or --append FILE");
  sub.add_option("--windows-exec", a.windows_exec,
                 "COMM: every process of the benchmark that runs COMM (its file name, as ps shows it) is a "
                 "repetition, timed as its harness times it (from its fork to its exit, or until its parent reaps "
                 "it), for harnesses that start a process per run: "
                 "noisewatch --windows-exec bench -- hyperfine -N -r 20 ./bench");
  sub.add_option("--windows-at", a.windows_at,
                 "SYMBOL[@LIB]: every call of the function SYMBOL by the benchmark (the outermost on its thread) "
                 "is a repetition: a uprobe at its entry and its return. In the executable or a library it needs; "
                 "C++ by mangled or demangled name (step, ns::step, ns::step(int))");
  sub.add_option("--warmup-windows", a.warmup_windows,
                 "with --windows, --windows-exec or --windows-at: the first N windows of each process run are "
                 "warm-ups (kept in the record, not measured)");
  sub.add_option("--timeline", a.timeline,
                 "write timestamped noise events, windows and runs to FILE as Chrome trace-event JSON "
                 "(Perfetto UI, chrome://tracing); the record keeps a summary for the HTML report")
      ->type_name("FILE");
  sub.add_option("--timeline-threshold", a.threshold,
                 "with --timeline: record events at least this long, e.g. 5us, 1ms (default 10us; a bare number "
                 "is microseconds)");
}

std::string exec_window_comm(const std::string& arg) {
  std::string name = arg;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  if (auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  if (name.empty())
    throw Error("--windows-exec: give the name of the program each run starts, e.g. --windows-exec bench");
  // The kernel keeps the first 15 bytes of the file name (TASK_COMM_LEN 16 with its NUL).
  return name.substr(0, 15);
}

uint64_t parse_threshold_ns(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  double scale = unit.empty() || unit == "us" || unit == "µs" ? 1e3 : unit == "ns" ? 1.0 : unit == "ms" ? 1e6 : 0;
  if (used == 0 || scale == 0 || !std::isfinite(v) || v < 0 || v * scale > 1e12)
    throw Error(fmt::format("--timeline-threshold: \"{}\" is not a duration: write e.g. 10us, 500ns or 1ms", text));
  return uint64_t(std::llround(v * scale));
}

void apply_window_options(runner::Plan& p, const WindowArgs& a) {
  if (!a.windows.empty() && a.windows != "marks" &&
      std::find(std::begin(kWindowHarnesses), std::end(kWindowHarnesses), a.windows) == std::end(kWindowHarnesses))
    throw Error(
        fmt::format("--windows={}: no such harness. --windows alone: the benchmark marks its windows; "
                    "--windows gbench: Google Benchmark's repetitions; --windows hyperfine: hyperfine's runs; "
                    "--windows pyperf: pyperf's workers; for another harness that starts a process per run "
                    "(ReBench, shell loops): --windows-exec COMM",
                    a.windows));
  if (int(!a.windows.empty()) + int(!a.windows_exec.empty()) + int(!a.windows_at.empty()) > 1)
    throw Error(
        "--windows, --windows-exec and --windows-at are three ways to cut the repetitions: choose one "
        "(--windows: the benchmark marks its windows, --windows gbench: Google Benchmark's repetitions; "
        "--windows-exec COMM: each process running COMM is one; --windows-at SYMBOL: each call of the "
        "function is one)");
  p.windows.on = !a.windows.empty() || !a.windows_exec.empty() || !a.windows_at.empty();
  if (a.windows != "marks") p.windows.harness = a.windows;
  // hyperfine starts a process per run: its runs are exec windows of the program it benchmarks.
  if (a.windows == "hyperfine") p.windows.exec = exec_window_comm(runner::hyperfine_program(p.command));
  if (!a.windows_exec.empty()) p.windows.exec = exec_window_comm(a.windows_exec);
  p.windows.at = a.windows_at;
  if (a.warmup_windows && !p.windows.on)
    throw Error(
        "--warmup-windows needs --windows, --windows-exec or --windows-at (it drops the first windows of each "
        "process run)");
  if (a.warmup_windows && *a.warmup_windows < 0)
    throw Error(fmt::format("--warmup-windows cannot be negative (got {})", *a.warmup_windows));
  p.windows.warmup = a.warmup_windows.value_or(0);
  if (!a.threshold.empty() && a.timeline.empty())
    throw Error("--timeline-threshold needs --timeline FILE (the file the events go to)");
  if (!a.threshold.empty()) p.timeline_threshold_ns = parse_threshold_ns(a.threshold);
  if (!a.timeline.empty()) {
    // Found out now, not after the benchmark ran.
    int fd = open(a.timeline.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(fmt::format("--timeline: cannot write {}: {}", a.timeline, std::strerror(errno)));
    close(fd);
    p.timeline = a.timeline;
  }
}

}  // namespace nw::cli
