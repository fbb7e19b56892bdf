// SPDX-License-Identifier: Apache-2.0
// noisewatch run reports: the measured repetitions' wall times, and the record kept for noise.
#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "compare/input.h"
#include "record/window_labels.h"

namespace nw::compare {

using nlohmann::json;

namespace {

// The same benchmark built in two trees (./old/bench vs ./new/bench) must still match:
// the name is the program's base name plus its arguments.
std::string benchmark_name(const std::vector<std::string>& command) {
  if (command.empty()) return "(unnamed command)";
  std::string name = command[0];
  if (auto slash = name.find_last_of('/'); slash != std::string::npos && slash + 1 < name.size())
    name = name.substr(slash + 1);
  for (size_t i = 1; i < command.size(); ++i) name += " " + command[i];
  return name;
}

// One benchmark: the record's measured runs (or windows).
Benchmark one_benchmark(std::string name, RunRecord rec, InputFile& in) {
  // The probe's CPU time of the benchmark itself (cpu_ns, less the interrupt time the scheduler
  // counted in it) where every measured run has it; records of older versions have only
  // getrusage()'s user + sys, which also holds noisewatch's own pre-exec work in the child.
  bool probe_cpu = !rec.measured().empty();
  for (const auto* run : rec.measured()) probe_cpu = probe_cpu && run->cpu_ns.has_value();
  Benchmark b{std::move(name), {}, std::nullopt, {}, std::nullopt, probe_cpu ? "cpu_ns" : "user+sys"};
  int failed = 0;
  bool all_cpu = true;  // a report from a kernel without rusage times has 0 there
  for (const auto* run : rec.measured()) {
    b.times_ns.push_back(checked_time_ns(double(run->wall_ns), 1, fmt::format("runs[{}].wall_ns", run->index)));
    double cpu = probe_cpu ? double(*run->cpu_ns) - double(run->cpu_irq_ns.value_or(0))
                           : double(run->user_ns) + double(run->sys_ns);
    all_cpu = all_cpu && cpu > 0;
    b.cpu_ns.push_back(cpu);
    if (run->exit_status != 0) ++failed;
  }
  if (!all_cpu) b.cpu_ns.clear();
  // --windows pyperf: pyperf's own duration of each worker run, where every measured window has it.
  for (const auto* run : rec.measured()) {
    if (!run->harness_duration_ns) {
      b.run_durations_ns.clear();
      break;
    }
    b.run_durations_ns.push_back(double(*run->harness_duration_ns));
  }
  if (b.times_ns.empty()) throw Error("the report has no measured (non-warm-up) runs");
  if (failed > 0) in.notes.push_back(fmt::format("{} measured run(s) exited non-zero", failed));
  b.record = std::move(rec);
  return b;
}

}  // namespace

std::vector<Benchmark> parse_noisewatch(const json& j, InputFile& in) {
  RunRecord rec;
  try {
    rec = run_record_from_json(j);
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
  if (rec.compare_sides)
    throw Error(
        "it is a live compare's record (runs of A and B interleaved): compare it alone, "
        "noisewatch compare FILE, or one side of it with report --label A");
  std::vector<Benchmark> out;
  // --windows gbench, --windows pyperf: each benchmark the harness ran under the name it gives it
  // (the window labels), so the record compares with the harness's own JSON (and with another such
  // record) by name.
  // A pyperf record whose windows were not paired with pyperf's JSON (no -o in the command) has
  // them labelled with the program's name: one benchmark named by the command, as before.
  const std::string harness = rec.windows_harness ? rec.windows_harness->name : "";
  const auto measured = rec.measured();
  const bool pyperf_named =
      harness == "pyperf" && std::any_of(measured.begin(), measured.end(),
                                         [](const RunSample* r) { return r->harness_duration_ns.has_value(); });
  if ((harness == "gbench" || pyperf_named) && !measured.empty()) {
    for (const auto& label : measured_labels(rec))
      if (!label.empty()) out.push_back(one_benchmark(label, only_label(rec, label), in));
    if (!out.empty()) return out;
  }
  std::string name = benchmark_name(rec.command);  // before `rec` moves
  out.push_back(one_benchmark(std::move(name), std::move(rec), in));
  return out;
}

}  // namespace nw::compare
