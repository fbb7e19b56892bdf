// SPDX-License-Identifier: Apache-2.0
// `noisewatch check`: options, output selection and the exit status (0 / 1 warnings / 2 failures).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "check/check_context.h"
#include "check/check_render.h"
#include "check/check_runner.h"
#include "check/rules.h"
#include "cli/commands.h"
#include "cli/format_option.h"
#include "common/errors.h"
#include "common/output.h"

namespace nw::cli {

namespace {

struct CheckArgs {
  std::string cpu, sysroot, format = "text", output, priority = "other";
  double duration = 5, threshold_us = 1;
  int top = 5;
  bool no_attribution = false;
};

int run_check_command(const CheckArgs& a) {
  if (a.duration < 0)
    throw Error(
        fmt::format("--duration {} is negative; give seconds >= 0 (0 skips the noise measurement)", a.duration));
  if (a.threshold_us <= 0) throw Error("--threshold must be > 0 microseconds");
  if (a.top < 1) throw Error(fmt::format("--top {} lists nothing; give 1 or more sources per CPU", a.top));
  if (!a.sysroot.empty() && !std::filesystem::is_directory(a.sysroot))
    throw Error(
        fmt::format("--sysroot {}: no such directory; give a directory made by `noisewatch snapshot`", a.sysroot));
  check_writable(a.output, "-o");
  check::CheckOptions opts;
  if (!a.cpu.empty()) opts.cpus = check::parse_cpu_option(a.cpu);
  opts.duration_s = a.duration;
  opts.threshold_ns = uint64_t(a.threshold_us * 1000);
  opts.attribute = !a.no_attribution;
  opts.top_sources = size_t(a.top);
  check::NoiseOptions prio;
  check::parse_priority(a.priority, prio);
  opts.policy = prio.policy;
  opts.priority = prio.priority;
  sys::Sysroot root(a.sysroot);
  auto report = check::run_check(root, opts);

  bool to_stdout = a.output.empty() || a.output == "-";
  // node_exporter may read the file at any time: write_document writes it whole.
  write_document(render_as(check::check_formats(), a.format, report, to_stdout && use_color(stdout)), a.output);
  return report.exit_status();
}

}  // namespace

void register_check(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("check", "pre-flight health check: is this machine fit to benchmark on?");
  auto args = std::make_shared<CheckArgs>();
  sub->add_option("--cpu", args->cpu,
                  "target CPUs, e.g. 2 or 2-3 (default: the CPUs this process may use (affinity, cpuset); the isolated "
                  "ones among them if any)");
  sub->add_option("--duration", args->duration, "seconds of live noise measurement in total; 0 skips it")
      ->capture_default_str();
  sub->add_option("--threshold", args->threshold_us, "gap threshold in microseconds for the noise measurement")
      ->capture_default_str();
  sub->add_option("--priority", args->priority,
                  "scheduling of the probe threads: other, or fifo:N / rr:N to see only what is bound to each CPU")
      ->capture_default_str();
  sub->add_option("--sysroot", args->sysroot, "read /proc and /sys under DIR (e.g. from `noisewatch snapshot`)")
      ->type_name("DIR");
  add_format_option(sub, args->format, format_names(check::check_formats()), format_help(check::check_formats()));
  sub->add_option("-o,--output", args->output, "write the report to FILE instead of stdout")->type_name("FILE");
  sub->add_flag("--no-attribution", args->no_attribution, "do not load the eBPF probe to attribute gaps");
  sub->add_option("--top", args->top, "sources listed per measured CPU (the total attributed is always given)")
      ->capture_default_str();
  sub->footer(fmt::format(
      "Examples:\n"
      "  noisewatch check                          every check, then 5 s of noise measurement\n"
      "  noisewatch check --cpu 2-3 --duration 2   about CPUs 2-3 only\n"
      "  noisewatch check --priority fifo:1        only what is bound to each CPU (IRQs, pinned threads)\n"
      "  noisewatch snapshot /tmp/m && noisewatch check --sysroot /tmp/m   check a copy of a machine\n"
      "  noisewatch check --format prometheus -o /var/lib/node_exporter/noisewatch.prom\n"
      "\n"
      "The measurement spins a thread on every target CPU at once; meanwhile noisewatch itself sleeps\n"
      "or runs elsewhere. The eBPF probe charges each CPU's gaps to what ran or interrupted there, never\n"
      "more than the gap time (the rest is hardware/hypervisor). The recommended CPU is the quietest;\n"
      "housekeeping CPUs (CPU 0, or the non-isolated ones) give way only to a CPU less than {:.0f}x as noisy.\n"
      "\n"
      "Failures (exit 2): timings taken on this machine now are not comparable:\n"
      "  power-supply        on battery (mains offline, or a battery discharging)\n"
      "  thermal-throttling  a target CPU was throttled during the measurement\n"
      "  measured-noise      even the quietest measured CPU lost {:.0f}% or more of its time to gaps\n"
      "Exit status: 0 no warnings, 1 warnings, 2 failures, 125 bad input.\n"
      "Statuses: ok, info (a fact, no action), warn, fail, unknown (the files needed are absent).",
      check::kComparableNoiseRatio, check::kNoiseFailPpm / 1e4));
  sub->callback([&action, args] { action = [args] { return run_check_command(*args); }; });
}

}  // namespace nw::cli
