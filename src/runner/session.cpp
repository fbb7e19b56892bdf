#include "runner/session.h"

#include <signal.h>

#include <optional>

#include <utility>  // Boost 1.74 asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <fmt/format.h>

#include "common/errors.h"
#include "common/files.h"
#include "common/phase_timing.h"
#include "probes/counters.h"
#include "probes/noise_probe.h"
#include "runner/command_lookup.h"
#include "runner/gbench_windows.h"
#include "runner/held_child.h"
#include "runner/neighbours.h"
#include "runner/privileges.h"
#include "runner/repetition.h"
#include "runner/run_sample.h"
#include "runner/task_switches.h"
#include "runner/throttle_counter.h"
#include "runner/timeline_session.h"
#include "runner/window_session.h"
#include "runner/window_split.h"
#include "system/cpulist.h"
#include "system/task_times.h"
#include "system/host_info.h"

namespace nw::runner {

namespace {

// Sources the machine cannot provide, said once per record with the reason.
void note_machine_limits(RunRecord& rec, const std::vector<int>& cpus, const probes::NoiseProbe& probe) {
  bool any_cpufreq = false, any_sibling = false;
  for (int c : cpus) {
    any_cpufreq = any_cpufreq || probe.has_cpufreq(c);
    any_sibling = any_sibling || probe.has_sibling(c);
  }
  if (!any_cpufreq)
    rec.add_unavailable("frequency", rec.host.virtualized
                                         ? "no cpufreq driver: the guest cannot see the host's CPU frequency; "
                                           "frequency changes land in `unexplained`"
                                         : "no cpufreq driver exposes the CPU frequency on this machine");
  if (!any_sibling)
    rec.add_unavailable("smt", fmt::format("no SMT sibling on CPU {} (SMT off or absent): nothing to share a core with",
                                           sys::format_cpulist(cpus)));
  if (rec.host.virtualized)
    rec.add_unavailable("host", "virtual machine: the host's own contention (other guests, host IRQs) is invisible "
                                "to the guest beyond steal time and lands in `unexplained`");
}

probes::ProbeOptions probe_options(const Plan& plan) {
  probes::ProbeOptions o;
  o.windows = plan.windows;
  o.windows_exec = plan.windows_exec;
  if (plan.windows_harness == "gbench") o.call = {kGbenchIterationsOffset, true, true};
  o.windows_exec_as_root = plan.windows_harness == "pyperf";
  o.timeline.on = !plan.timeline.empty();
  o.timeline.threshold_ns = plan.timeline_threshold_ns;
  return o;
}

// How the windows of a --windows session are cut, as the record says it.
void note_windows(RunRecord& rec, const Plan& plan, const WindowSession& windows) {
  rec.warmup_windows = plan.warmup_windows;
  if (!plan.windows_exec.empty()) rec.windows_exec = plan.windows_exec;
  if (plan.windows_call)
    rec.windows_at = nlohmann::json{{"spec", plan.windows_at},
                                    {"binary", plan.windows_call->binary},
                                    {"symbol", plan.windows_call->symbol},
                                    {"function", plan.windows_call->shown}};
  if (!plan.windows_harness.empty()) rec.windows_harness = nlohmann::json{{"name", plan.windows_harness}};
  if (plan.windows_harness == "gbench") {  // its functions are the harness's, not a --windows-at
    rec.windows_at.reset();
    (*rec.windows_harness)["binary"] = plan.windows_call->binary;
    (*rec.windows_harness)["output"] = windows.harness_output();
  }
  if (plan.windows_harness == "pyperf" && !windows.harness_output().empty())
    (*rec.windows_harness)["output"] = windows.harness_output();
}

// A failed or interrupted repetition ends the session: its status and the warning that says so.
// Returns whether it did.
bool stop_after(const ChildResult& r, int i, int total, RunRecord& rec, int& exit_status) {
  if (r.forwarded_signal) {
    exit_status = 128 + r.forwarded_signal;
    rec.warnings.push_back(fmt::format("interrupted by {} during repetition {} of {}: the report covers the "
                                       "repetitions completed before it",
                                       r.forwarded_signal == SIGINT ? "SIGINT" : "SIGTERM", i + 1, total));
    return true;
  }
  if (r.exit_status != 0) {
    exit_status = r.exit_status;
    rec.warnings.push_back(
        r.signal ? fmt::format("repetition {} was killed by signal {} ({}); stopped there", i + 1, *r.signal,
                               strsignal(*r.signal))
                 : fmt::format("repetition {} exited with status {}; stopped there", i + 1, r.exit_status));
    return true;
  }
  return false;
}

}  // namespace

SessionResult run_session(const Plan& plan, const Progress& progress, const std::function<void()>& ready,
                          const Schedule& schedule) {
  require_bpf_privileges();
  SessionResult out;
  RunRecord& rec = out.record;
  rec.version = NOISEWATCH_VERSION;
  rec.command = plan.command;
  rec.cpus = plan.cpus;
  rec.pinned = plan.pin;
  rec.cpu_reason = plan.cpu_reason;
  rec.host = sys::read_host_info();
  timing::mark("host facts");

  // Signals are caught from here on, so Ctrl-C during probe loading still ends cleanly.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  ::signal(SIGPIPE, SIG_IGN);

  // Counters first: an unknown event name is the user's error and should not wait for BPF.
  std::optional<probes::Counters> counters;
  if (plan.counters) {
    counters.emplace(plan.events);
    for (const auto& u : counters->unavailable()) rec.add_unavailable(u.probe, u.reason);
    timing::mark("counters");
  }
  probes::NoiseProbe probe(probe_options(plan));
  for (const auto& u : probe.unavailable()) rec.add_unavailable(u.probe, u.reason);
  std::optional<WindowSession> windows;
  if (plan.windows) {
    windows.emplace(*probe.markers(), lookup_command(plan.command[0]).path, plan);
    note_windows(rec, plan, *windows);
  }
  std::optional<timeline::Recording> tl;
  if (!plan.timeline.empty()) {
    tl.emplace();
    tl->threshold_ns = plan.timeline_threshold_ns;
  }
  note_machine_limits(rec, plan.cpus, probe);
  if (!probe.measures_steal() && rec.host.virtualized)
    rec.add_unavailable("steal", "this kernel does not account hypervisor steal in the scheduler "
                                 "(CONFIG_PARAVIRT_TIME_ACCOUNTING): steal comes from /proc/stat in 10 ms ticks, "
                                 "for the whole CPU");
  const uint64_t lost_at_start = probe.lost_events();
  Repetition repetition(io, signals);
  ThrottleCounter throttle;
  NeighbourWatch neighbours(plan.cpus, [&] {
    auto tasks = probe.task_times();
    return tasks ? std::move(*tasks) : sys::read_task_times();
  });
  // The CPUs the benchmark is pinned to; none when it may run anywhere.
  const std::vector<int> pinned_cpus = plan.pin ? plan.cpus : std::vector<int>{};
  timing::mark("session setup");
  if (ready) ready();
  const int total = plan.warmup + plan.runs;
  uint64_t unseen_switches = 0;

  int repetitions = 0;
  for (int i = 0;; ++i) {
    std::optional<Step> step;
    if (schedule) step = schedule(rec);
    else if (i < total) step = Step{.warmup = i < plan.warmup};
    if (!step) break;
    ++repetitions;
    const auto& command = step->command == 0 ? plan.command : plan.alternatives.at(step->command - 1);
    timing::lap_start();
    const std::string workdir = step->command < plan.workdirs.size() ? plan.workdirs[step->command] : "";
    HeldChild child(command, pinned_cpus, plan.setup, workdir);
    timing::lap("fork and hold");
    probe.untrack_all();
    probe.collect(true);  // whatever happened between repetitions is not this one's
    probe.drain_timeline();
    timing::lap("probe reset");
    // The child is blocked waiting for its release (or a few microseconds from it: what it runs
    // after this read is then counted as the benchmark's).
    probe.track_held(child.pid(), read_task_runtime(child.pid()));
    const SwitchCounts before_tracking = read_task_switches(child.pid());
    const ProbeReading before = read_probe(probe, plan.cpus);
    if (counters) counters->attach(child.pid());

    if (windows) windows->arm(io, child.pid());
    timing::lap("arm");
    // Outside the cgroup's throttle window: the snapshots are noisewatch's own CPU time.
    neighbours.before(child.pid());
    timing::lap("neighbours");
    throttle.start();
    // (A child preempted on its way to waiting for the release, tracked meanwhile, opened a
    // blocking span when it blocked: noisewatch's work since then is not the benchmark's.)
    probe.begin_run();
    timing::lap("arm");
    ChildResult r = repetition.run(child);
    timing::lap("release to exit");

    auto events = probe.collect(true);
    const auto throttled_ns = throttle.elapsed();
    timing::lap("collect");
    auto neighbours_now = neighbours.after();  // a lap of its own: every task's run time
    timing::lap("neighbours");
    probes::WindowReadout marks;
    if (windows) {
      marks = windows->finish(io, rec.warnings, i);
      for (auto& e : events) e.window = marks.window_of(e.window);
    }
    const ProbeReading after = read_probe(probe, plan.cpus);
    probe.untrack_all();
    RepetitionFacts facts{.index = i,
                          .warmup = step->warmup,
                          .child = r,
                          .cgroup_throttled_ns = throttled_ns,
                          .before_tracking = before_tracking,
                          .neighbours = std::move(neighbours_now),
                          .counters = counters ? counters->read_and_close() : std::map<std::string, CounterValue>{}};
    RunSample s = sample_from(probe.measures_steal(), before, after, std::move(facts), events);
    s.label = step->label;
    s.pair = step->pair;
    rec.interrupted = rec.interrupted || s.interrupted;
    if (s.probe_switches) unseen_switches += s.probe_switches->unseen;
    timing::lap("collect");
    if (progress) progress(s, total);
    if (!windows) {
      rec.runs.push_back(std::move(s));
    } else if (!record_windows(rec, s, events, marks, plan.warmup_windows)) {
      // A benchmark that failed before marking anything keeps its process run as the entry, so
      // the report says how it failed; one that ran fine but marked nothing is told how to mark.
      if (r.exit_status == 0 && !r.forwarded_signal) throw Error(windows->no_window_message(i));
      rec.runs.push_back(std::move(s));
    }
    if (tl) record_timeline(*tl, probe, rec, i, step->warmup, r.start_ns, r.start_ns + r.wall_ns,
                            windows ? &marks : nullptr);

    timing::lap("record");
    if (i == 0) timing::mark("first repetition");
    if (stop_after(r, i, total, rec, out.exit_status)) break;
  }
  for (auto& w : probe.untraced_vectors_fired(pinned_cpus)) rec.warnings.push_back(std::move(w));
  if (unseen_switches)
    rec.warnings.push_back(fmt::format(
        "{} context switch{} touching the benchmark went untraced (this kernel hides some tasks from tracing; on "
        "these VMs, the init agent's threads): the time around {} is reconstructed from the scheduler's runtime, and "
        "what the hidden task took is charged to the task seen before it or to no source",
        unseen_switches, unseen_switches == 1 ? "" : "es", unseen_switches == 1 ? "it" : "them"));
  if (tl) finish_timeline(*tl, probe, rec, plan.timeline);
  if (windows)
    if (auto w = windows->cost_warning(rec.runs)) rec.warnings.push_back(*w);
  rec.lost_events = probe.lost_events() - lost_at_start;
  rec.summary = summarize(rec);
  if (repetitions > 1) timing::mark(fmt::format("{} more repetitions", repetitions - 1));
  return out;
}

}  // namespace nw::runner
