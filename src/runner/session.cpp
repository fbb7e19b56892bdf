// SPDX-License-Identifier: Apache-2.0
#include "runner/session.h"

#include <signal.h>

#include <memory>
#include <optional>

#include <utility>  // Boost 1.74 asio/awaitable.hpp uses std::exchange without it

#include <fmt/format.h>
#include <boost/asio.hpp>

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
#include "system/host_info.h"
#include "system/task_times.h"

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
    rec.add_unavailable("host",
                        "virtual machine: the host's own contention (other guests, host IRQs) is invisible "
                        "to the guest beyond steal time and lands in `unexplained`");
}

probes::ProbeOptions probe_options(const Plan& plan) {
  probes::ProbeOptions o;
  o.windows = plan.windows.on;
  o.windows_exec = plan.windows.exec;
  if (plan.windows.harness == "gbench") o.call = {kGbenchIterationsOffset, true, true};
  o.windows_exec_as_root = plan.windows.harness == "pyperf";
  o.timeline.on = !plan.timeline.empty();
  o.timeline.threshold_ns = plan.timeline_threshold_ns;
  return o;
}

// How the windows of a --windows session are cut, as the record says it.
void note_windows(RunRecord& rec, const Plan& plan, const WindowSession& windows) {
  rec.warmup_windows = plan.windows.warmup;
  if (!plan.windows.exec.empty()) rec.windows_exec = plan.windows.exec;
  if (plan.windows.call)
    rec.windows_at = WindowsAt{.spec = plan.windows.at,
                               .binary = plan.windows.call->binary,
                               .symbol = plan.windows.call->symbol,
                               .function = plan.windows.call->shown};
  if (!plan.windows.harness.empty()) rec.windows_harness = WindowsHarness{.name = plan.windows.harness};
  if (plan.windows.harness == "gbench") {  // its functions are the harness's, not a --windows-at
    rec.windows_at.reset();
    rec.windows_harness->binary = plan.windows.call->binary;
    rec.windows_harness->output = windows.harness_output();
  }
  if (plan.windows.harness == "pyperf" && !windows.harness_output().empty())
    rec.windows_harness->output = windows.harness_output();
}

// A failed or interrupted repetition ends the session: its status and the warning that says so.
// Returns whether it did.
bool stop_after(const ChildResult& r, int i, int total, RunRecord& rec, int& exit_status) {
  if (r.forwarded_signal) {
    exit_status = 128 + r.forwarded_signal;
    rec.warnings.push_back(
        fmt::format("interrupted by {} during repetition {} of {}: the report covers the "
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

// The warning for switches the probe did not see (ProbeSwitches::unseen), summed over the session.
std::string unseen_switches_warning(uint64_t n) {
  return fmt::format(
      "{} context switch{} touching the benchmark went untraced (this kernel hides some tasks from tracing; on "
      "these VMs, the init agent's threads): the time around {} is reconstructed from the scheduler's runtime, and "
      "what the hidden task took is charged to the task seen before it or to no source",
      n, n == 1 ? "" : "es", n == 1 ? "it" : "them");
}

// The record's facts known before any repetition.
SessionResult open_record(const Plan& plan) {
  SessionResult out;
  RunRecord& rec = out.record;
  rec.version = NOISEWATCH_VERSION;
  rec.command = plan.command;
  rec.cpus = plan.cpus;
  rec.pinned = plan.pin;
  rec.cpu_reason = plan.cpu_reason;
  rec.host = sys::read_host_info();
  timing::mark("host facts");
  return out;
}

// Signals are caught from here on, so Ctrl-C during probe loading still ends cleanly.
boost::asio::signal_set catch_signals(boost::asio::io_context& io) {
  ::signal(SIGPIPE, SIG_IGN);
  return boost::asio::signal_set(io, SIGINT, SIGTERM);
}

// Counters first: an unknown event name is the user's error and should not wait for BPF.
std::unique_ptr<probes::Counters> open_counters(const Plan& plan, RunRecord& rec) {
  if (!plan.counters) return nullptr;
  auto counters = std::make_unique<probes::Counters>(plan.events);
  for (const auto& u : counters->unavailable()) rec.add_unavailable(u.probe, u.reason);
  timing::mark("counters");
  return counters;
}

// One session, split the way Google Benchmark's BenchmarkRunner is (DoOneRepetition): the
// constructor loads the probes and opens the record, do_one_repetition() runs and records one
// repetition, finish() completes the record. The probes stay loaded across repetitions.
class Session {
 public:
  explicit Session(const Plan& plan);
  // Repetition `i`: the schedule's, or without one plan.warmup warm-ups then plan.measured_runs runs;
  // nullopt when the session is over.
  std::optional<Step> next_step(int i, const Schedule& schedule) const;
  // Runs and records repetition `i`; false when it ends the session (failed or interrupted).
  bool do_one_repetition(int i, const Step& step, const Progress& progress);
  SessionResult finish();

 private:
  // The held child's figures read just before its release.
  struct Start {
    SwitchCounts before_tracking;
    ProbeReading reading;
  };
  // What one repetition left: the probe's events, the windows it marked (--windows), its sample.
  struct Collected {
    std::vector<probes::NoiseEvent> events;
    probes::WindowReadout marks;
    RunSample sample;
  };
  HeldChild hold(const Step& step) const;
  Start arm(pid_t child);
  Collected collect(int i, const Step& step, const ChildResult& r, const Start& start);
  void record(int i, const Step& step, const ChildResult& r, Collected c);

  const Plan& plan_;
  SessionResult out_;
  RunRecord& rec_ = out_.record;
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  std::unique_ptr<probes::Counters> counters_;  // none with --no-counters
  probes::NoiseProbe probe_;
  std::optional<WindowSession> windows_;
  std::optional<timeline::Recording> tl_;
  uint64_t lost_at_start_ = 0;
  Repetition repetition_;
  ThrottleCounter throttle_;
  NeighbourWatch neighbours_;
  const std::vector<int> pinned_cpus_;  // the CPUs the benchmark is pinned to; none when it may run anywhere
  const int total_;                     // warm-ups and runs, without a schedule
  uint64_t unseen_switches_ = 0;
  int repetitions_ = 0;
};

Session::Session(const Plan& plan)
    : plan_(plan),
      out_(open_record(plan)),
      signals_(catch_signals(io_)),
      counters_(open_counters(plan, rec_)),
      probe_(probe_options(plan)),
      repetition_(io_, signals_),
      neighbours_(plan.cpus,
                  [this] {
                    auto tasks = probe_.task_times();
                    return tasks ? std::move(*tasks) : sys::read_task_times();
                  }),
      pinned_cpus_(plan.pin ? plan.cpus : std::vector<int>{}),
      total_(plan.warmup + plan.measured_runs) {
  for (const auto& u : probe_.unavailable()) rec_.add_unavailable(u.probe, u.reason);
  if (plan.windows.on) {
    windows_.emplace(*probe_.markers(), lookup_command(plan.command[0]).path, plan);
    note_windows(rec_, plan, *windows_);
  }
  if (!plan.timeline.empty()) {
    tl_.emplace();
    tl_->threshold_ns = plan.timeline_threshold_ns;
  }
  note_machine_limits(rec_, plan.cpus, probe_);
  if (!probe_.measures_steal() && rec_.host.virtualized)
    rec_.add_unavailable("steal",
                         "this kernel does not account hypervisor steal in the scheduler "
                         "(CONFIG_PARAVIRT_TIME_ACCOUNTING): steal comes from /proc/stat in 10 ms ticks, "
                         "for the whole CPU");
  lost_at_start_ = probe_.lost_events();
  timing::mark("session setup");
}

std::optional<Step> Session::next_step(int i, const Schedule& schedule) const {
  if (schedule) return schedule(rec_);
  if (i < total_) return Step{.warmup = i < plan_.warmup};
  return std::nullopt;
}

bool Session::do_one_repetition(int i, const Step& step, const Progress& progress) {
  ++repetitions_;
  timing::lap_start();
  HeldChild child = hold(step);
  timing::lap("fork and hold");
  const Start start = arm(child.pid());
  const ChildResult r = repetition_.run(child, [this] { return probe_.benchmark_exit_ns(); });
  timing::lap("release to exit");
  Collected c = collect(i, step, r, start);
  if (progress) progress(c.sample, total_);
  record(i, step, r, std::move(c));
  timing::lap("record");
  if (i == 0) timing::mark("first repetition");
  return !stop_after(r, i, total_, rec_, out_.exit_status);
}

HeldChild Session::hold(const Step& step) const {
  const auto& command = step.command == 0 ? plan_.command : plan_.alternatives.at(step.command - 1);
  const std::string workdir = step.command < plan_.workdirs.size() ? plan_.workdirs[step.command] : "";
  return HeldChild(command, pinned_cpus_, plan_.setup, workdir);
}

Session::Start Session::arm(pid_t child) {
  probe_.untrack_all();
  probe_.collect(true);  // whatever happened between repetitions is not this one's
  probe_.drain_timeline();
  timing::lap("probe reset");
  // The child is blocked waiting for its release, or on its way there (then the probe measures
  // the rest of its slice from the tracking on, as noisewatch's).
  probe_.track_held(child, read_task_runtime(child));
  Start start{.before_tracking = read_task_switches(child), .reading = read_probe(probe_, plan_.cpus)};
  if (counters_) counters_->attach(child);

  if (windows_) windows_->arm(io_, child);
  timing::lap("arm");
  // Outside the cgroup's throttle window: the snapshots are noisewatch's own CPU time.
  neighbours_.before(child);
  timing::lap("neighbours");
  throttle_.start();
  // (A child preempted on its way to waiting for the release, tracked meanwhile, opened a
  // blocking span when it blocked: noisewatch's work since then is not the benchmark's.)
  probe_.begin_run();
  timing::lap("arm");
  return start;
}

Session::Collected Session::collect(int i, const Step& step, const ChildResult& r, const Start& start) {
  Collected c;
  c.events = probe_.collect(true);
  const auto throttled_ns = throttle_.elapsed();
  timing::lap("collect");
  auto neighbours_now = neighbours_.after();  // a lap of its own: every task's run time
  timing::lap("neighbours");
  if (windows_) {
    c.marks = windows_->finish(io_, rec_.warnings, i);
    for (auto& e : c.events) e.window = c.marks.window_of(e.window);
  }
  const ProbeReading after = read_probe(probe_, plan_.cpus);
  probe_.untrack_all();
  RepetitionFacts facts{.index = i,
                        .warmup = step.warmup,
                        .child = r,
                        .cgroup_throttled_ns = throttled_ns,
                        .before_tracking = start.before_tracking,
                        .neighbours = std::move(neighbours_now),
                        .counters = counters_ ? counters_->read_and_close() : std::map<std::string, CounterValue>{}};
  c.sample = sample_from(probe_.measures_steal(), start.reading, after, std::move(facts), c.events);
  c.sample.label = step.label;
  c.sample.pair = step.pair;
  rec_.interrupted = rec_.interrupted || c.sample.interrupted;
  if (c.sample.probe_switches) unseen_switches_ += c.sample.probe_switches->unseen;
  timing::lap("collect");
  return c;
}

void Session::record(int i, const Step& step, const ChildResult& r, Collected c) {
  if (!windows_) {
    rec_.samples.push_back(std::move(c.sample));
  } else if (!record_windows(rec_, c.sample, c.events, c.marks, plan_.windows.warmup)) {
    // A benchmark that failed before marking anything keeps its process run as the entry, so
    // the report says how it failed; one that ran fine but marked nothing is told how to mark.
    if (r.exit_status == 0 && !r.forwarded_signal) throw Error(windows_->no_window_message(i));
    rec_.samples.push_back(std::move(c.sample));
  }
  if (tl_)
    record_timeline(*tl_, probe_, rec_, i, step.warmup, r.start_ns, r.start_ns + r.wall_ns,
                    windows_ ? &c.marks : nullptr);
}

SessionResult Session::finish() {
  for (auto& w : probe_.untraced_vectors_fired(pinned_cpus_)) rec_.warnings.push_back(std::move(w));
  if (unseen_switches_) rec_.warnings.push_back(unseen_switches_warning(unseen_switches_));
  if (tl_) finish_timeline(*tl_, probe_, rec_, plan_.timeline);
  if (windows_)
    if (auto w = windows_->cost_warning(rec_.samples)) rec_.warnings.push_back(*w);
  rec_.lost_events = probe_.lost_events() - lost_at_start_;
  rec_.summary = summarize(rec_);
  if (repetitions_ > 1) timing::mark(fmt::format("{} more repetitions", repetitions_ - 1));
  return std::move(out_);
}

}  // namespace

SessionResult run_session(const Plan& plan, const Progress& progress, const std::function<void()>& ready,
                          const Schedule& schedule) {
  require_bpf_privileges();
  Session session(plan);
  if (ready) ready();
  for (int i = 0;; ++i) {
    const std::optional<Step> step = session.next_step(i, schedule);
    if (!step || !session.do_one_repetition(i, *step, progress)) break;
  }
  return session.finish();
}

}  // namespace nw::runner
