#include "runner/session.h"

#include <signal.h>

#include <optional>

#include <utility>  // Boost 1.74 asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <fmt/format.h>

#include "common/errors.h"
#include "common/files.h"
#include "probes/counters.h"
#include "probes/noise_probe.h"
#include "runner/command_lookup.h"
#include "runner/gbench_windows.h"
#include "runner/held_child.h"
#include "runner/neighbours.h"
#include "runner/noise_merge.h"
#include "runner/privileges.h"
#include "runner/repetition.h"
#include "runner/steal.h"
#include "runner/task_switches.h"
#include "runner/throttle_counter.h"
#include "runner/timeline_session.h"
#include "runner/window_session.h"
#include "runner/window_split.h"
#include "sources/vocabulary.h"
#include "system/cpulist.h"
#include "system/host_info.h"

namespace nw::runner {

namespace {

uint64_t to_ns(const timeval& tv) { return uint64_t(tv.tv_sec) * 1'000'000'000ull + uint64_t(tv.tv_usec) * 1000ull; }

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

}  // namespace

SessionResult run_session(const Plan& plan, const Progress& progress, const std::function<void()>& ready) {
  require_bpf_privileges();
  SessionResult out;
  RunRecord& rec = out.record;
  rec.version = NOISEWATCH_VERSION;
  rec.command = plan.command;
  rec.cpus = plan.cpus;
  rec.pinned = plan.pin;
  rec.cpu_reason = plan.cpu_reason;
  rec.host = sys::read_host_info();

  // Signals are caught from here on, so Ctrl-C during probe loading still ends cleanly.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  ::signal(SIGPIPE, SIG_IGN);

  // Counters first: an unknown event name is the user's error and should not wait for BPF.
  std::optional<probes::Counters> counters;
  if (plan.counters) {
    counters.emplace(plan.events);
    for (const auto& u : counters->unavailable()) rec.add_unavailable(u.probe, u.reason);
  }
  probes::ProbeOptions probe_opts;
  probe_opts.windows = plan.windows;
  probe_opts.windows_exec = plan.windows_exec;
  if (plan.windows_harness == "gbench") probe_opts.call = {kGbenchIterationsOffset, true};
  probe_opts.windows_exec_as_root = plan.windows_harness == "pyperf";
  probe_opts.timeline.on = !plan.timeline.empty();
  probe_opts.timeline.threshold_ns = plan.timeline_threshold_ns;
  probes::NoiseProbe probe(probe_opts);
  for (const auto& u : probe.unavailable()) rec.add_unavailable(u.probe, u.reason);
  std::optional<WindowSession> windows;
  if (plan.windows) {
    windows.emplace(*probe.markers(), lookup_command(plan.command[0]).path, plan);
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
      (*rec.windows_harness)["output"] = windows->harness_output();
    }
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
  NeighbourWatch neighbours(plan.cpus);
  if (ready) ready();
  const int total = plan.warmup + plan.runs;

  for (int i = 0; i < total; ++i) {
    HeldChild child(plan.command, plan.pin ? plan.cpus : std::vector<int>{}, plan.setup);
    probe.untrack_all();
    probe.collect(true);  // whatever happened between repetitions is not this one's
    probe.drain_timeline();
    // The child is blocked waiting for its release (or a few microseconds from it: what it runs
    // after this read is then counted as the benchmark's).
    probe.track_held(child.pid(), read_task_runtime(child.pid()));
    const SwitchCounts before_tracking = read_task_switches(child.pid());
    const SwitchCounts switches0 = probe.switches();
    const uint64_t cpu0 = probe.cpu_ns(), irq_running0 = probe.stolen_running_ns();
    if (counters) counters->attach(child.pid());
    uint64_t steal0 = read_steal_ns(plan.cpus);
    std::vector<probes::FrequencySnapshot> f0;
    for (int c : plan.cpus) f0.push_back(probe.frequency(c));

    if (windows) windows->arm(io, child.pid());
    // Outside the cgroup's throttle window: the snapshots are noisewatch's own CPU time.
    neighbours.before(child.pid());
    throttle.start();
    // (A child preempted on its way to waiting for the release, tracked meanwhile, opened a
    // blocking span when it blocked: noisewatch's work since then is not the benchmark's.)
    probe.begin_run();
    ChildResult r = repetition.run(child);

    auto events = probe.collect(true);
    const std::optional<uint64_t> throttled = throttle.elapsed();
    std::vector<Neighbour> neighbours_ran = neighbours.after();
    probes::WindowReadout marks;
    if (windows) {
      marks = windows->finish(io, rec.warnings, i);
      for (auto& e : events) e.window = marks.window_of(e.window);
    }
    const SwitchCounts switches1 = probe.switches();
    const uint64_t cpu1 = probe.cpu_ns(), irq_running1 = probe.stolen_running_ns();
    probe.untrack_all();
    RunSample s;
    if (counters) s.counters = counters->read_and_close();
    s.index = i;
    s.warmup = i < plan.warmup;
    s.wall_ns = r.wall_ns;
    s.cpu_ns = cpu1 - cpu0;
    s.cpu_irq_ns = irq_running1 - irq_running0;
    s.cgroup_throttled_ns = throttled;
    s.user_ns = to_ns(r.usage.ru_utime);
    s.sys_ns = to_ns(r.usage.ru_stime);
    s.exit_status = r.exit_status;
    s.signal = r.signal;
    s.voluntary_switches = uint64_t(r.usage.ru_nvcsw);
    s.involuntary_switches = uint64_t(r.usage.ru_nivcsw);
    s.neighbours = std::move(neighbours_ran);
    s.probe_switches = ProbeSwitches{{switches1.voluntary - switches0.voluntary,
                                      switches1.involuntary - switches0.involuntary},
                                     before_tracking};
    s.minor_faults = uint64_t(r.usage.ru_minflt);
    s.major_faults = uint64_t(r.usage.ru_majflt);
    // Steal: the probe's (ns, only while the benchmark ran or waited) where the kernel accounts
    // it, else /proc/stat's for the whole CPUs (10 ms ticks: a run can gain or lose one).
    if (!probe.measures_steal()) s.steal_ns = read_steal_ns(plan.cpus) - steal0;
    s.noise = merge_noise(events);
    for (const auto& e : s.noise) {
      if (e.source == sources::kMigration) s.migrations = e.count;
      if (e.source == sources::kBlocking) s.blocking_ns = e.time_ns;
    }
    // Faults: measured CPU time when the probe traces them (count: faults handled after the
    // execve), else getrusage's count alone (its cost is then estimated by the report).
    nlohmann::json fault_detail = {{"minor", s.minor_faults}, {"major", s.major_faults}};
    if (auto it = std::find_if(s.noise.begin(), s.noise.end(),
                               [](const NoiseEntry& e) { return e.source == sources::kFault; });
        it != s.noise.end())
      it->detail = fault_detail;
    else if (s.minor_faults + s.major_faults)
      s.noise.push_back({std::string(sources::kFault), s.minor_faults + s.major_faults, 0, 0, fault_detail});
    if (probe.measures_steal()) {
      if (const NoiseEntry* e = s.find(std::string(sources::kSteal))) s.steal_ns = e->time_ns;
    } else if (s.steal_ns) {
      s.noise.push_back({std::string(sources::kSteal), 1, s.steal_ns, s.steal_ns, {{"from", "/proc/stat"}}});
    }
    double khz_ns = 0, ns = 0;
    for (size_t k = 0; k < plan.cpus.size(); ++k) {
      auto f1 = probe.frequency(plan.cpus[k]);
      if (f0[k].known && f1.known && f1.at_ns > f0[k].at_ns) {
        khz_ns += f1.khz_ns - f0[k].khz_ns;
        ns += double(f1.at_ns - f0[k].at_ns);
      }
    }
    if (ns > 0) s.mean_khz = khz_ns / ns;
    // Without cpufreq events, APERF/MPERF (when the PMU has them) still say how fast it ran.
    if (auto it = s.counters.find(probes::kEffectiveGhz); !s.mean_khz && it != s.counters.end() && it->second.raw)
      s.mean_khz = double(it->second.raw);
    if (r.forwarded_signal) {
      s.interrupted = true;
      rec.interrupted = true;
    }
    if (progress) progress(s, total);
    if (!windows) {
      rec.runs.push_back(std::move(s));
    } else if (!record_windows(rec, s, events, marks, plan.warmup_windows)) {
      // A benchmark that failed before marking anything keeps its process run as the entry, so
      // the report says how it failed; one that ran fine but marked nothing is told how to mark.
      if (r.exit_status == 0 && !r.forwarded_signal) throw Error(windows->no_window_message(i));
      rec.runs.push_back(std::move(s));
    }
    if (tl) record_timeline(*tl, probe, rec, i, i < plan.warmup, r.start_ns, r.start_ns + r.wall_ns,
                            windows ? &marks : nullptr);

    if (r.forwarded_signal) {
      out.exit_status = 128 + r.forwarded_signal;
      rec.warnings.push_back(fmt::format("interrupted by {} during repetition {} of {}: the report covers the "
                                         "repetitions completed before it",
                                         r.forwarded_signal == SIGINT ? "SIGINT" : "SIGTERM", i + 1, total));
      break;
    }
    if (r.exit_status != 0) {
      out.exit_status = r.exit_status;
      rec.warnings.push_back(
          r.signal ? fmt::format("repetition {} was killed by signal {} ({}); stopped there", i + 1, *r.signal,
                                 strsignal(*r.signal))
                   : fmt::format("repetition {} exited with status {}; stopped there", i + 1, r.exit_status));
      break;
    }
  }
  if (tl) finish_timeline(*tl, probe, rec, plan.timeline);
  if (windows)
    if (auto w = windows->cost_warning(rec.runs)) rec.warnings.push_back(*w);
  rec.lost_events = probe.lost_events() - lost_at_start;
  rec.summary = summarize(rec);
  return out;
}

}  // namespace nw::runner
