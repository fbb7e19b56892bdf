// `noisewatch [run] [options] -- CMD [ARGS...]`
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "cli/format_option.h"
#include "check/check_runner.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "record/run_record.h"
#include "reports/report.h"
#include "runner/command_lookup.h"
#include "runner/cpu_choice.h"
#include "runner/output.h"
#include "runner/plan.h"
#include "runner/session.h"
#include "system/cpulist.h"
#include "system/host_info.h"
#include "system/interrupts.h"

namespace nw::cli {

namespace {

struct RunArgs {
  std::string cpu;
  bool no_pin = false;
  int runs = 10;
  int warmup = 1;
  std::string json;
  std::string format;
  std::string output;
  std::string events;
  bool quiet = false;
  bool no_counters = false;
};

// --cpu auto's noise measurement: long enough to see the tick and periodic work on each CPU.
constexpr double kAutoSeconds = 1.0;

runner::Plan make_plan(const RunArgs& a, std::vector<std::string> command) {
  runner::Plan p;
  p.command = std::move(command);
  if (p.command.empty())
    throw Error("no benchmark command: put it after `--`, e.g. `noisewatch -- ./bench --args`");
  if (a.runs < 1) throw Error(fmt::format("--runs must be at least 1 (got {})", a.runs));
  if (a.warmup < 0) throw Error(fmt::format("--warmup cannot be negative (got {})", a.warmup));
  p.counters = !a.no_counters;
  if (a.no_counters && !a.events.empty()) throw Error("--events and --no-counters contradict each other: choose one");
  p.runs = a.runs;
  p.warmup = a.warmup;
  auto allowed = runner::allowed_cpus();
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
  } else if (a.cpu.empty()) {
    auto choice = runner::choose_cpu(allowed, sys::read_interrupts());
    if (choice.cpus.empty()) throw Error("no CPU is available to run the benchmark on");
    p.cpus = choice.cpus;
    p.cpu_reason = choice.reason;
  } else {
    try {
      p.cpus = sys::parse_cpulist(a.cpu);
    } catch (const std::invalid_argument& e) {
      throw Error(fmt::format("--cpu: {}", e.what()));
    }
    runner::validate_cpus(p.cpus, allowed);
    p.cpu_reason = fmt::format("CPU {} as asked (--cpu)", sys::format_cpulist(p.cpus));
  }
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

int do_run(const RunArgs& a, const std::vector<std::string>& command) {
  // Validate everything that can be wrong before loading probes or running anything.
  runner::OutputPlan out = runner::plan_output(a.format, a.output, a.json);
  runner::Plan plan = make_plan(a, command);
  auto found = runner::lookup_command(plan.command[0]);
  if (found.status) {
    fmt::print(stderr, "noisewatch: {}\n", found.message);
    return found.status;
  }
  bool tty = isatty(STDERR_FILENO);
  auto ready = [&] {
    if (!a.quiet) fmt::print(stderr, "noisewatch: {}\n", plan.pin ? "pinned to " + plan.cpu_reason : plan.cpu_reason);
  };
  auto progress = [&](const RunSample& s, int total) {
    if (a.quiet || !tty) return;
    fmt::print(stderr, "noisewatch: {} {}/{}: {:.3f} ms, {:.3f} ms stolen{}\n", s.warmup ? "warm-up" : "run",
               s.index + 1, total, double(s.wall_ns) / 1e6, double(s.stolen_ns()) / 1e6,
               s.exit_status ? fmt::format(", exit {}", s.exit_status) : "");
  };
  auto result = runner::run_session(plan, progress, ready);
  runner::write_outputs(result.record, out);
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
      "  noisewatch --json run.json -- ./bench     also save the record (re-render: noisewatch report)");
  sub->add_option("-c,--cpu", args->cpu,
                  "CPU(s) to pin the benchmark to, e.g. 3 or 2-3; `auto` first measures the noise of every allowed "
                  "CPU at once for 1 s and takes the quietest, like `noisewatch check` (default: not CPU 0; the "
                  "allowed CPU with the fewest device IRQs)");
  sub->add_flag("--no-pin", args->no_pin, "do not pin; observe wherever the benchmark runs");
  sub->add_option("-r,--runs", args->runs, "measured repetitions")->capture_default_str();
  sub->add_option("-w,--warmup", args->warmup, "unmeasured repetitions first")->capture_default_str();
  sub->add_option("--json", args->json, "write the run record (noisewatch.run/1) to FILE; '-' for stdout");
  add_format_option(sub, args->format, {"text", "json", "markdown", "md", "html"},
                    "report format: text (default) | json | markdown | html; on stdout unless -o");
  sub->add_option("-o,--output", args->output, "write the --format report to FILE instead of stdout");
  sub->add_option("-e,--events", args->events,
                  "perf events by libpfm4 name, comma-separated (see `noisewatch events`); default: cycles, "
                  "instructions, cache/branch misses, software counters and effective GHz where there is a "
                  "hardware PMU, none without one (the record has CPU time, switches, migrations, faults)");
  sub->add_flag("--no-counters", args->no_counters, "do not open perf counters (eBPF probes only)");
  sub->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  sub->footer(
      "What the record's figures mean (see README, \"What is charged, and to whom\"):\n"
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
    auto command = sub->remaining();
    // prefix_command() hands over unknown options too; a benchmark is never named "-x".
    if (!command.empty() && command.front().size() > 1 && command.front()[0] == '-')
      throw CLI::ExtrasError("unknown option " + command.front() + " (see `noisewatch run --help`)",
                             CLI::ExitCodes::ExtrasError);
    const auto& tail = trailing_args();
    command.insert(command.end(), tail.begin(), tail.end());
    action = [args, command] { return do_run(*args, command); };
  });
}

}  // namespace nw::cli
