// SPDX-License-Identifier: Apache-2.0
// timer-storm and irq-storm: noise that arrives as interrupts (and, for the timer, the thread it
// wakes). On a VM part of each interrupt's cost is the host's and invisible to the guest, so the
// share floors have VM variants (lower, never absent), and the unexplained remainder is quoted.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "stats/descriptive.h"
#include "tests/accuracy/inject/score.h"

namespace nw::inject {

namespace {

// timer-storm. Shares: preemption:acc_timer + irq:local_timer together >= 0.60 with one of them
// the first row; on a VM, one of them first among named sources and together >= 0.25. Why 0.25:
// on this project's VMs each timer interrupt also costs the guest 5-14 us the host spends
// (VM exits) that no guest event shows, seen as the benchmark's own CPU time rising with the
// storm by about as much as the storm's visible cost; so the named sources can explain about
// half of the storm's variance at best, less while the host's own wander adds variance.
constexpr double kTimerShare = 0.60, kTimerShareVm = 0.25;
// Every slice of the thread seen, and every timer interrupt that woke it: preemption:acc_timer's
// count / the times the thread left the CPU (getrusage: a wake-up whose timer fires before the
// thread got off the CPU continues the same slice), and irq:local_timer's count less the clean
// runs' median / the wake-ups, each the median over the injected runs, within 1 +- 0.05.
constexpr double kTimerCountTolerance = 0.05;
// Charged time. The thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) is the kernel's
// sum_exec_runtime: without CONFIG_IRQ_TIME_ACCOUNTING (these VMs, Debian's kernels) it holds
// every interrupt that fired while the thread was on the CPU. The probe follows the accounting
// model instead: nested time counts once, so such an interrupt is charged to irq:local_timer and
// left out of preemption:acc_timer. How much of the thread's CPU time that is depends on the
// machine: every wake-up that did not begin a slice fired while the thread held the CPU, and on a
// fresh VM of the CI kind the thread stays on the CPU for most of them (11,700-13,000 wake-ups in
// 380-520 slices, ~5.7 us per interrupt: preemption:acc_timer alone 0.70-0.75 of the CPU time),
// while on the VM the suite was tuned on nearly every wake-up began a slice (19,245 in 19,199,
// ~2.2 us: 0.997-0.998). So the ground truth compares like with like: (preemption:acc_timer time
// + the storm's interrupts inside the thread's slices, i.e. (wake-ups - slices) x the storm's mean
// interrupt cost from irq:local_timer less the clean runs' median) / the thread's CPU time, median
// over the injected runs, within 1 +- 0.05; measured 0.997-1.004 on both machines. What it cannot
// match: the in-slice interrupts costing other than the mean (both kinds run the same hrtimer
// path), the thread's last wake-ups after the benchmark ended (the injector's reaction, < 1 ms of
// 250-400 ms) and the clean runs' tick wander (< 0.5 ms): under 2 % together.
constexpr double kTimerTimeTolerance = 0.05;

// irq-storm. Shares: the IRQ + softirq:BLOCK together >= 0.50 with one of them the first row; on
// a VM (the host's side of the I/O is invisible) one of them first among named sources with the
// two together >= 0.15 (issue #12 section 6). Where the kernel accounts steal, the host's side
// shows as steal in the storm runs only (the host serves the guest's disk I/O on the vCPU's
// physical CPU): measured 0.35-0.41 of the variance on 2026-12-02, first named, in every suite
// run. On a VM steal is then the same injection's host side, not a rival cause: the VM rule
// looks for the first named source other than steal.
constexpr double kIrqShare = 0.50, kIrqShareVm = 0.15;
// Every IRQ on the target CPU while the benchmark ran is charged: the probe's count / the
// /proc/interrupts delta on the target CPU over the same repetition, summed over the injected
// runs, within [0.90, 1.02] (the delta spans a little more than the benchmark's life).
constexpr double kIrqCountLow = 0.90, kIrqCountHigh = 1.02;

bool first_is(const Attribution* a, std::initializer_list<std::string> sources) {
  if (!a) return false;
  for (const auto& s : sources)
    if (a->source == s) return true;
  return false;
}

// The two named sources' share rule, strict and on a VM.
void share_rule(const ScoreInput& in, Scorecard& card, const std::string& a, const std::string& b, double floor,
                double vm_floor, bool steal_is_host_side = false) {
  double together = in.share(a) + in.share(b);
  const auto *top = in.top(), *named = in.first_named();
  if (steal_is_host_side && named && named->source == "steal")  // on a VM: the storm's host side (see above)
    for (const auto& row : in.rec.attribution)
      if (row.source != "unexplained" && row.source != "steal") {
        named = &row;
        break;
      }
  char strict[400], vm[300];
  std::snprintf(strict, sizeof strict, "share: %s %.3f + %s %.3f = %.3f >= %.2f, one of them the first row (first: %s)",
                a.c_str(), in.share(a), b.c_str(), in.share(b), together, floor, top ? top->source.c_str() : "-");
  std::snprintf(vm, sizeof vm,
                "one of them first among named sources (%s), together >= %.2f; unexplained remainder %.3f",
                named ? named->source.c_str() : "-", vm_floor, in.share("unexplained"));
  card.vm_rule(strict, first_is(top, {a, b}) && together >= floor, first_is(named, {a, b}) && together >= vm_floor, vm);
}

}  // namespace

int score_timer_storm(const ScoreInput& in) {
  Scorecard card(in);
  const std::string pre = "preemption:acc_timer", loc = "irq:local_timer";
  common_rules(in, card, true, {pre, loc});
  share_rule(in, card, pre, loc, kTimerShare, kTimerShareVm);

  std::vector<double> counts, irqs, times, alone, local_clean, local_clean_ms;
  for (const auto* r : in.clean()) {
    local_clean.push_back(double(count_of(*r->run, loc)));
    local_clean_ms.push_back(time_ms(*r->run, loc));
  }
  double local_base = local_clean.empty() ? 0 : stats::median(local_clean);
  double local_base_ms = local_clean_ms.empty() ? 0 : stats::median(local_clean_ms);
  char buf[400];
  for (const auto* r : in.injected()) {
    double wakeups = r->truth->value("timer_wakeups", 0.0), runtime = r->truth->value("timer_runtime_ns", 0.0) / 1e6;
    double slices = r->truth->value("timer_switches", 0.0);
    double n = double(count_of(*r->run, pre)), t = time_ms(*r->run, pre);
    counts.push_back(slices > 0 ? n / slices : 0);
    irqs.push_back(wakeups > 0 ? (double(count_of(*r->run, loc)) - local_base) / wakeups : 0);
    // The storm's interrupts taken while the thread held its CPU: every wake-up but the one that
    // began each slice (that one fired while the benchmark ran), at the storm's mean cost.
    double storm_irqs = double(count_of(*r->run, loc)) - local_base;
    double per_irq_ms = storm_irqs > 0 ? std::max(0.0, time_ms(*r->run, loc) - local_base_ms) / storm_irqs : 0;
    double in_thread_ms = per_irq_ms * std::max(0.0, wakeups - slices);
    times.push_back(runtime > 0 ? (t + in_thread_ms) / runtime : 0);
    alone.push_back(runtime > 0 ? t / runtime : 0);
    std::snprintf(buf, sizeof buf,
                  "run %d: %.0f wake-ups, %.0f slices, thread CPU time %.2f ms; probe: %s %.0f (%.2f ms), %s %llu "
                  "(%.2f ms; clean runs' median %.0f, %.2f ms); interrupt time inside the thread's slices %.2f ms",
                  r->run->index, wakeups, slices, runtime, pre.c_str(), n, t, loc.c_str(),
                  (unsigned long long)count_of(*r->run, loc), time_ms(*r->run, loc), local_base, local_base_ms,
                  in_thread_ms);
    card.note(buf);
  }
  auto median_near_1 = [&](const std::vector<double>& v, double tolerance, const std::string& what) {
    double m = v.empty() ? 0 : stats::median(v);
    std::snprintf(buf, sizeof buf, "truth: %s, median %.3f within 1 +- %.2f (%s)", what.c_str(), m, tolerance,
                  fmt_list(v).c_str());
    card.rule(buf, !v.empty() && std::abs(m - 1) <= tolerance);
  };
  median_near_1(counts, kTimerCountTolerance, pre + " count / the thread's slices");
  median_near_1(irqs, kTimerCountTolerance, loc + " count less the clean runs' median / wake-ups");
  median_near_1(times, kTimerTimeTolerance,
                "(" + pre + " time + the storm's interrupt time inside its slices) / the thread's CPU time");
  // Evidence, not a rule: how much of the thread's CPU time its interrupts took on this machine.
  std::snprintf(buf, sizeof buf, "%s time alone / the thread's CPU time: median %.3f (%s)", pre.c_str(),
                alone.empty() ? 0 : stats::median(alone), fmt_list(alone).c_str());
  card.note(buf);
  return card.print(pre + " + " + loc);
}

int score_irq_storm(const ScoreInput& in) {
  Scorecard card(in);
  const std::string irq = "irq:" + in.irq, block = "softirq:BLOCK";
  common_rules(in, card, true, {irq, block});
  share_rule(in, card, irq, block, kIrqShare, kIrqShareVm, true);

  double charged = 0, fired = 0;
  char buf[400];
  for (const auto& r : in.runs) {
    double n = double(count_of(*r.run, irq)), truth = r.truth->value("irq_on_target", 0.0);
    if (r.injected) charged += n, fired += truth;
    std::snprintf(buf, sizeof buf,
                  "run %d%s: %llu O_DIRECT writes; %s on the target CPU %.0f (/proc/interrupts); probe %.0f (%.2f ms), "
                  "%s %llu (%.2f ms)",
                  r.run->index, r.injected ? " (storm)" : "", (unsigned long long)r.truth->value("io_writes", 0ull),
                  in.irq.c_str(), truth, n, time_ms(*r.run, irq), block.c_str(),
                  (unsigned long long)count_of(*r.run, block), time_ms(*r.run, block));
    card.note(buf);
  }
  double ratio = fired > 0 ? charged / fired : 0;
  std::snprintf(buf, sizeof buf,
                "truth: %s count charged / fired on the target CPU over the injected runs, %.0f / %.0f = %.3f within "
                "[%.2f, %.2f]",
                irq.c_str(), charged, fired, ratio, kIrqCountLow, kIrqCountHigh);
  card.rule(buf, fired > 0 && ratio >= kIrqCountLow && ratio <= kIrqCountHigh);
  const auto& s = in.truth.setup;
  if (s.contains("irq_steered"))
    card.note(s["irq_steered"].get<bool>()
                  ? "IRQ steered with smp_affinity_list (restored after)"
                  : "IRQ could not be steered (" + s.value("irq_steer_error", std::string("?")) +
                        "): it lands where it lands");
  if (s.contains("irq_fraction_on_target")) {
    std::snprintf(buf, sizeof buf, "the IRQ landed %.0f %% on the target CPU in the landing probe",
                  100 * s["irq_fraction_on_target"].get<double>());
    card.note(buf);
  }
  return card.print(irq + " | " + block);
}

}  // namespace nw::inject
