// SPDX-License-Identifier: Apache-2.0
// `noisewatch [run] [options] -- CMD [ARGS...]`
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/check_runner.h"
#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/window_options.h"
#include "common/errors.h"
#include "common/phase_timing.h"
#include "probes/call_symbol.h"
#include "record/run_record.h"
#include "reports/report.h"
#include "runner/auto_runs.h"
#include "runner/command_lookup.h"
#include "runner/cpu_choice.h"
#include "runner/gbench_windows.h"
#include "runner/plan.h"
#include "runner/pyperf_windows.h"
#include "runner/run_outputs.h"
#include "runner/session.h"
#include "system/allowed_cpus.h"
#include "system/cpu_selection.h"
#include "system/cpulist.h"
#include "system/host_info.h"
#include "system/interrupts.h"
#include "tune/scoped.h"
#include "tune/selection.h"
#include "tune/signal_latch.h"

namespace nw::cli {

namespace {

struct RunArgs {
  std::string cpu;
  bool no_pin = false;
  int runs = 10;
  std::string runs_text;  // as given: a number, or "auto"
  double precision = 1.0;
  int max_runs = 200;
  bool precision_given = false, max_runs_given = false;
  int warmup = 1;
  bool runs_given = false, warmup_given = false;  // CLI11 says whether they were
  bool runs_auto = false;                         // --runs auto
  std::string json;
  std::string format;
  std::string output;
  std::string events;
  bool quiet = false;
  bool no_counters = false;
  // Per-benchmark knobs and the machine tuning for this run.
  bool no_aslr = false, clean_env = false, tune = false;
  int fifo = 0, nice = 0;  // 0: not given (CLI11 says whether they were)
  std::optional<uint64_t> timer_slack;
  bool fifo_given = false, nice_given = false;
  std::vector<std::string> env;
  std::string journal, tune_only, tune_skip;
  WindowArgs win;
};

runner::BenchmarkSetup make_setup(const RunArgs& a) {
  runner::BenchmarkSetup s;
  s.no_aslr = a.no_aslr;
  s.clean_env = a.clean_env;
  if (a.fifo_given && a.nice_given)
    throw Error("--fifo and --nice contradict each other (nice does not apply to a SCHED_FIFO task): choose one");
  if (a.fifo_given) s.fifo = a.fifo;
  if (a.nice_given) s.nice = a.nice;
  s.timer_slack_ns = a.timer_slack;
  for (const auto& kv : a.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(fmt::format("--env {}: expected NAME=VALUE, e.g. --env OMP_NUM_THREADS=1", kv));
    s.env.push_back(kv);
  }
  if ((!a.journal.empty() || !a.tune_only.empty() || !a.tune_skip.empty()) && !a.tune)
    throw Error("--journal, --tune-only and --tune-skip go with --tune: add --tune, or drop them");
  return s;
}

// What the record says about the benchmark's setup (docs/contracts.md: run report, "setup").
nlohmann::json setup_json(const runner::BenchmarkSetup& s) {
  nlohmann::json j = nlohmann::json::object();
  if (s.no_aslr) j["no_aslr"] = true;
  if (s.fifo) j["fifo"] = *s.fifo;
  if (s.nice) j["nice"] = *s.nice;
  if (s.timer_slack_ns) j["timer_slack_ns"] = *s.timer_slack_ns;
  if (s.clean_env) j["clean_env"] = true;
  if (!s.env.empty()) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto& kv : s.env) names.push_back(kv.substr(0, kv.find('=')));
    j["env"] = names;
  }
  return j;
}

std::string setup_text(const runner::BenchmarkSetup& s) {
  std::vector<std::string> parts;
  if (s.no_aslr) parts.push_back("ASLR off");
  if (s.fifo) parts.push_back(fmt::format("SCHED_FIFO {}", *s.fifo));
  if (s.nice) parts.push_back(fmt::format("nice {}", *s.nice));
  if (s.timer_slack_ns) parts.push_back(fmt::format("timer slack {} ns", *s.timer_slack_ns));
  if (s.clean_env) parts.push_back("clean environment (PATH, HOME, LANG=C)");
  if (!s.env.empty()) parts.push_back(fmt::format("{} --env", s.env.size()));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// --cpu auto's noise measurement: long enough to see the tick and periodic work on each CPU.
constexpr double kAutoSeconds = 1.0;

runner::Plan make_plan(const RunArgs& a, std::vector<std::string> command) {
  runner::Plan p;
  p.command = std::move(command);
  if (p.command.empty()) throw Error("no benchmark command: put it after `--`, e.g. `noisewatch -- ./bench --args`");
  if (a.runs < 1) throw Error(fmt::format("--runs must be at least 1 (got {})", a.runs));
  if (!a.runs_auto && (a.precision_given || a.max_runs_given))
    throw Error("--precision and --max-runs go with --runs auto: add it, or drop them");
  if (a.runs_auto && a.max_runs < 2) throw Error(fmt::format("--max-runs must be at least 2 (got {})", a.max_runs));
  if (a.warmup < 0) throw Error(fmt::format("--warmup cannot be negative (got {})", a.warmup));
  p.counters = !a.no_counters;
  if (a.no_counters && !a.events.empty()) throw Error("--events and --no-counters contradict each other: choose one");
  p.measured_runs = a.runs;
  p.warmup = a.warmup;
  p.setup = make_setup(a);
  const auto available = sys::read_cpu_availability();
  const auto& allowed = available.allowed;
  if (a.no_pin) {
    if (!a.cpu.empty()) throw Error("--cpu and --no-pin contradict each other: choose one");
    p.pin = false;
    p.cpus = allowed;
    p.cpu_reason = "not pinned (--no-pin): the benchmark runs wherever the scheduler puts it";
  } else if (a.cpu == "auto") {
    // Measure instead of guess: osnoise-style spinning on every allowed CPU at once, so the
    // measurement takes kAutoSeconds however many CPUs there are.
    auto m = check::choose_quiet_cpu(allowed, kAutoSeconds);
    // Each spinner's window ends at its first clock read past the deadline: on a loaded CPU
    // that can be late, so both ends of the range are said.
    uint64_t shortest = UINT64_MAX, longest = 0;
    for (const auto& c : m.measured) {
      shortest = std::min(shortest, c.measured_ns);
      longest = std::max(longest, c.measured_ns);
    }
    if (m.measured.empty()) shortest = 0;
    p.cpus = {m.choice.cpu};
    p.cpu_reason = longest - shortest > 10'000'000
                       ? fmt::format("{} (--cpu auto: CPU {} measured at once for {:.2f} s; windows {:.2f}-{:.2f} s)",
                                     m.choice.reason, sys::format_cpulist(allowed), double(shortest) / 1e9,
                                     double(shortest) / 1e9, double(longest) / 1e9)
                       : fmt::format("{} (--cpu auto: CPU {} measured at once for {:.2f} s)", m.choice.reason,
                                     sys::format_cpulist(allowed), double(shortest) / 1e9);
  } else {
    auto chosen = runner::cpus_for(a.cpu);
    p.cpus = chosen.cpus;
    p.cpu_reason = chosen.reason;
  }
  // Where the benchmark could not go whatever was asked: said rather than silently left out
  // (cpus_for says it itself).
  if (a.no_pin || a.cpu == "auto")
    if (auto note = sys::unavailable_note(available.unavailable()); !note.empty()) p.cpu_reason += "; " + note;
  apply_window_options(p, a.win);
  if (a.runs_auto && p.windows.on)
    throw Error(
        "--runs auto repeats the command until its median is known; with a --windows mode the harness "
        "repeats by itself: give --runs N, or set the harness's own repetitions");
  if (a.runs_auto) p.measured_runs = a.max_runs;  // the upper bound (messages); auto_schedule decides
  // A harness (Google Benchmark, hyperfine, pyperf, a benchmark marking its windows) repeats and
  // warms up by itself: its windows are the repetitions, so it runs once, with no warm-up run of
  // its own, unless the user asks for more.
  if (p.windows.on) {
    if (!a.runs_given) p.measured_runs = 1;
    if (!a.warmup_given) p.warmup = 0;
    p.harness_runs_once = !a.runs_given && !a.warmup_given;
  }
  // pyperf writes its -o file once and refuses to overwrite it: a second run of it would fail.
  if (p.windows.harness == "pyperf" && p.measured_runs + p.warmup > 1)
    if (auto out = runner::pyperf_output_in_command(p.command); out && !out->append)
      throw Error(
          fmt::format("--windows pyperf with {} runs: pyperf refuses to overwrite its {} file, so its second "
                      "run would fail. Use --append FILE instead (pyperf adds each run's values to it), or "
                      "run it once (no --runs or --warmup: pyperf repeats by itself)",
                      p.measured_runs + p.warmup, out->option));
  if (!a.events.empty()) {
    std::string item;
    for (char c : a.events + ",") {
      if (c == ',') {
        if (!item.empty()) p.events.push_back(item);
        item.clear();
      } else if (c != ' ') {
        item += c;
      }
    }
  }
  return p;
}

// --windows gbench: Google Benchmark's State functions, in the executable (linked statically) or
// in the libbenchmark it needs. Runs gbench_out_in_command's checks before anything runs.
void resolve_gbench(runner::Plan& plan, const std::string& executable) {
  probes::CallSymbol start, finish;
  try {
    start = probes::resolve_call_symbol(runner::kGbenchStart, executable);
    finish = probes::resolve_call_symbol(runner::kGbenchFinish, executable);
  } catch (const Error&) {
    throw Error(
        fmt::format("--windows gbench: {} does not run Google Benchmark ({} is neither in it nor in a library "
                    "it needs). Give the benchmark binary itself after --, not a script that starts it",
                    executable, runner::kGbenchStart));
  }
  if (finish.binary != start.binary)
    throw Error(
        fmt::format("--windows gbench: {} has Google Benchmark's State::StartKeepRunning() in {} but its "
                    "FinishKeepRunning() in {}: link one copy of the library",
                    executable, start.binary, finish.binary));
  plan.windows.call = runner::WindowPlan::CallSite{start.binary, start.name, start.shown, start.file_offset};
  plan.windows.call_close = runner::WindowPlan::CallSite{finish.binary, finish.name, finish.shown, finish.file_offset};
  // Every release has them (they are the benchmark's API); without them in the same file the
  // window would be the whole State, paused set-up included: refused rather than misleading.
  probes::CallSymbol pause, resume;
  try {
    pause = probes::resolve_call_symbol(runner::kGbenchPause, executable);
    resume = probes::resolve_call_symbol(runner::kGbenchResume, executable);
  } catch (const Error&) {
  }
  if (pause.binary != start.binary || resume.binary != start.binary)
    throw Error(
        fmt::format("--windows gbench: {} has Google Benchmark's State::StartKeepRunning() in {} but not its "
                    "PauseTiming() and ResumeTiming() (which cut a repetition's paused time out of it): link "
                    "one copy of the library",
                    executable, start.binary));
  plan.windows.timer_stop = runner::WindowPlan::CallSite{pause.binary, pause.name, pause.shown, pause.file_offset};
  plan.windows.timer_start = runner::WindowPlan::CallSite{resume.binary, resume.name, resume.shown, resume.file_offset};
  (void)runner::gbench_out_in_command(plan.command);
}

int do_run(const RunArgs& a, const std::vector<std::string>& command) {
  // Validate everything that can be wrong before loading probes or running anything.
  runner::OutputPlan out = runner::plan_output(a.format, a.output, a.json);
  runner::Plan plan = make_plan(a, command);
  auto found = runner::lookup_command(plan.command[0]);
  if (found.status) {
    fmt::print(stderr, "noisewatch: {}\n", found.message);
    return found.status;
  }
  if (!plan.windows.at.empty()) {
    probes::CallSymbol f = probes::resolve_call_symbol(plan.windows.at, found.path);
    plan.windows.call = runner::WindowPlan::CallSite{f.binary, f.name, f.shown, f.file_offset};
  }
  if (plan.windows.harness == "gbench") resolve_gbench(plan, found.path);
  bool tty = isatty(STDERR_FILENO);
  auto ready = [&] {
    if (a.quiet) return;
    if (plan.harness_runs_once)
      fmt::print(stderr,
                 "noisewatch: the harness runs once, with no warm-up run: it repeats and warms up by itself, and "
                 "each window is a repetition (--runs N runs it N times)\n");
    fmt::print(stderr, "noisewatch: {}\n", plan.pin ? "pinned to " + plan.cpu_reason : plan.cpu_reason);
    if (plan.setup.any()) fmt::print(stderr, "noisewatch: the benchmark runs with {}\n", setup_text(plan.setup));
    if (plan.windows.call_close)
      fmt::print(stderr, "noisewatch: a window is each repetition Google Benchmark times (in {})\n",
                 plan.windows.call->binary);
    else if (plan.windows.call)
      fmt::print(stderr, "noisewatch: a window is each call of {} ({}, in {})\n", plan.windows.call->shown,
                 plan.windows.call->symbol, plan.windows.call->binary);
  };
  auto progress = [&](const RunSample& s, int total) {
    if (a.quiet || !tty) return;
    fmt::print(stderr, "noisewatch: {} {}/{}: {:.3f} ms, {:.3f} ms stolen{}\n", s.warmup ? "warm-up" : "run",
               s.index + 1, total, double(s.wall_ns) / 1e6, double(s.stolen_ns()) / 1e6,
               s.exit_status ? fmt::format(", exit {}", s.exit_status) : "");
  };
  // --tune: the machine is tuned for this run only. A signal while tuning or restoring is held
  // until the machine is in a known state; the session itself forwards SIGINT/SIGTERM to the
  // benchmark and ends cleanly; an exception restores through the ScopedTuning destructor.
  std::optional<tune::ScopedTuning> tuning;
  if (a.tune) {
    if (geteuid() != 0) throw Error("--tune changes /proc and /sys for the run: run noisewatch as root");
    auto selection = tune::select_knobs(tune::split_ids(a.tune_only), tune::split_ids(a.tune_skip));
    tune::SignalLatch latch;
    tuning.emplace(tune::journal_path_or_default(a.journal), plan.cpus, selection, "run --tune", a.quiet);
    if (int sig = latch.caught()) return tuning->restore() ? 128 + sig : kExitOwnError;
  }
  const runner::AutoRuns autoruns{a.precision, a.max_runs};
  auto result = runner::run_session(plan, progress, ready,
                                    a.runs_auto ? runner::auto_schedule(plan.warmup, autoruns) : runner::Schedule{});
  if (a.runs_auto) {
    result.record.runs_auto = runner::auto_summary(result.record, autoruns);
    if (!a.quiet) {
      const auto& ra = *result.record.runs_auto;
      fmt::print(stderr, "noisewatch: --runs auto: {} runs; the median is known within {} ({} %){}\n", ra.measured_runs,
                 ra.achieved_percent ? fmt::format("±{:.2f} %", *ra.achieved_percent) : std::string("no bound yet"),
                 ra.confidence_percent,
                 ra.reached ? "" : fmt::format(", not ±{:g} %: --max-runs {} reached", a.precision, a.max_runs));
    }
  }
  timing::mark("probe teardown");
  nlohmann::json setup = setup_json(plan.setup);
  if (tuning) {
    tune::SignalLatch latch;
    bool restored = tuning->restore();
    setup["tune"] = tuning->summary();
    if (!restored)
      result.record.warnings.push_back("the --tune tuning could not be fully restored: see `noisewatch tune status`");
  }
  if (!setup.empty()) result.record.setup = setup;
  runner::write_outputs(result.record, out);
  timing::mark("report");
  return result.exit_status;
}

}  // namespace

void register_run(CLI::App& app, Action& action) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand(
      "run",
      "Run a benchmark on a pinned CPU, record what took time from it, and explain its variance.\n"
      "  noisewatch -- ./bench                     10 runs + 1 warm-up on a CPU noisewatch picks\n"
      "  noisewatch -c 3 -r 30 -- ./bench --fast   30 runs pinned to CPU 3\n"
      "  noisewatch -r auto --precision 0.5 -- ./bench   runs until the median is known within +-0.5 %\n"
      "  noisewatch --json run.json -- ./bench     also save the record (re-render: noisewatch report)\n"
      "  noisewatch --no-aslr --clean-env --fifo 1 -- ./bench   the benchmark process alone, set up quieter\n"
      "  noisewatch --timer-slack 1 -- ./bench    its sleeps end on time (blocking:sleep varies less)\n"
      "  noisewatch --tune -- ./bench              tune the machine for this run, restore it afterwards\n"
      "  noisewatch --windows -- ./bench           every window ./bench marks is a repetition (./bench runs once)\n"
      "  noisewatch --windows hyperfine -- hyperfine -N -r 20 ./bench   each of hyperfine's 20 runs is one\n"
      "  noisewatch --windows gbench -- ./bm --benchmark_repetitions=20   each Google Benchmark repetition is one\n"
      "  noisewatch --timeline t.json -- ./bench   also write when the noise struck (open t.json in Perfetto)");
  sub->add_option("-c,--cpu", args->cpu,
                  "CPU(s) to pin the benchmark to, e.g. 3 or 2-3; `auto` first measures the noise of every allowed "
                  "CPU at once for 1 s and takes the quietest, like `noisewatch check` (default: not CPU 0; the "
                  "allowed CPU with the fewest device IRQs)");
  sub->add_flag("--no-pin", args->no_pin, "do not pin; observe wherever the benchmark runs");
  sub->add_option("-r,--runs", args->runs_text,
                  "measured repetitions (default 10; with a --windows mode, 1 run of the harness, which repeats by "
                  "itself); `auto`: until the median is known within --precision, --max-runs at most")
      ->type_name("N|auto")
      ->each([args](const std::string& v) {
        args->runs_given = true;
        args->runs_auto = v == "auto";
        if (args->runs_auto) return;
        try {
          size_t used = 0;
          args->runs = std::stoi(v, &used);
          if (used != v.size()) throw std::invalid_argument(v);
        } catch (const std::exception&) {
          throw CLI::ValidationError("expected a number of runs or `auto`, got '" + v + "'");
        }
      });
  sub->add_option("--precision", args->precision,
                  "PERCENT: with --runs auto, how closely the median must be known (its 95 % confidence sequence "
                  "within +-PERCENT; default 1)")
      ->check(CLI::Range(0.01, 100.0))
      ->each([args](const std::string&) { args->precision_given = true; });
  sub->add_option("--max-runs", args->max_runs, "with --runs auto: measured runs at most (default 200)")
      ->each([args](const std::string&) { args->max_runs_given = true; });
  sub->add_option("-w,--warmup", args->warmup,
                  "unmeasured repetitions first (default 1; with a --windows mode, 0: the harness warms up by itself)")
      ->each([args](const std::string&) { args->warmup_given = true; });
  sub->add_option("--json", args->json, "write the run record (noisewatch.run/1) to FILE; '-' for stdout")
      ->type_name("FILE");
  add_format_option(sub, args->format, report::format_names(),
                    "report format: " + report::format_choices() + "; on stdout unless -o");
  sub->add_option("-o,--output", args->output, "write the --format report to FILE instead of stdout")
      ->type_name("FILE");
  sub->add_option("-e,--events", args->events,
                  "perf events by libpfm4 name, comma-separated (see `noisewatch events`); default: cycles, "
                  "instructions, cache/branch misses, software counters and effective GHz where there is a "
                  "hardware PMU, none without one (the record has CPU time, switches, migrations, faults)");
  sub->add_flag("--no-counters", args->no_counters, "do not open perf counters (eBPF probes only)");
  add_window_options(*sub, args->win);
  sub->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  sub->add_flag("--no-aslr", args->no_aslr,
                "run the benchmark without address-space randomisation (like setarch -R; the benchmark only)");
  sub->add_option("--fifo", args->fifo, "run the benchmark SCHED_FIFO at priority N (1-99), like chrt -f N")
      ->check(CLI::Range(1, 99))
      ->each([args](const std::string&) { args->fifo_given = true; });
  sub->add_option("--nice", args->nice, "run the benchmark at nice N (-20 to 19)")
      ->check(CLI::Range(-20, 19))
      ->each([args](const std::string&) { args->nice_given = true; });
  sub->add_option("--timer-slack", args->timer_slack,
                  "NS: the benchmark's timer slack (prctl PR_SET_TIMERSLACK, inherited; the kernel's default is "
                  "50000): how late its sleeps and timeouts may end so the kernel can batch wake-ups. 1 for "
                  "sleeps as exact as the timer allows")
      ->check(CLI::Range(uint64_t(1), uint64_t(1'000'000'000)));
  sub->add_flag("--clean-env", args->clean_env,
                "pass the benchmark only PATH, HOME (yours) and LANG=C, like env -i (the stack layout depends on "
                "the environment's size); with --windows also NOISEWATCH_MARKER_FD");
  sub->add_option("--env", args->env, "K=V: add (or replace) one environment variable; repeat for more")
      ->allow_extra_args(false);
  sub->add_flag("--tune", args->tune,
                "apply `noisewatch tune apply` for this run only, for its CPUs, and restore everything afterwards "
                "(also after Ctrl-C; after a kill -9, at the next `tune restore` or --tune run)");
  sub->add_option("--tune-only", args->tune_only, "with --tune: only these knobs (ids of `noisewatch tune list`)")
      ->type_name("KNOBS");
  sub->add_option("--tune-skip", args->tune_skip, "with --tune: leave these knobs alone")->type_name("KNOBS");
  sub->add_option("--journal", args->journal, "the --tune journal (default /run/noisewatch/tune.json)")
      ->type_name("FILE");
  sub->footer(
      "What the record's figures mean (see docs/design.md, \"What is charged, and to whom\"):\n"
      "  wall_ns     from the benchmark's release to its exit\n"
      "  cpu_ns      the benchmark's CPU time, from its execve to each of its tasks' end (eBPF probe);\n"
      "              cpu_irq_ns of it is interrupt time that hit it while it ran\n"
      "  user_ns/sys_ns  getrusage(): also counts noisewatch's pre-exec work and the exec itself\n"
      "  blocking    wall time with none of the benchmark's tasks running or runnable (<= wall)\n"
      "  contention  the benchmark's own tasks keeping each other waiting (the workload's doing)\n"
      "  preemption, irq, softirq, nmi, wakeup:idle  time other work took while it wanted to run");
  // Everything from the benchmark's name on belongs to the benchmark, with or without `--`.
  sub->prefix_command();
  sub->callback([sub, args, &action] {
    auto command = benchmark_command(sub, "noisewatch run --help");
    action = [args, command] { return do_run(*args, command); };
  });
}

}  // namespace nw::cli
