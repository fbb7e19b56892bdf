// SPDX-License-Identifier: Apache-2.0
// preempt-rt: what a PREEMPT_RT kernel (or `threadirqs`) changes for a benchmark. Device interrupts
// are handled by kernel threads, irq/NN-name at SCHED_FIFO 50, which preempt any SCHED_OTHER task
// (and a --fifo 1 benchmark) the moment their device interrupts; each thread may run where its
// IRQ's affinity says, so the IRQ affinity knob moves it too. And RT throttling
// (kernel.sched_rt_runtime_us) stops a --fifo benchmark that runs without a break.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "sources/kernel_names.h"
#include "system/cpulist.h"
#include "system/processes.h"
#include "system/sysctl.h"

namespace nw::check {

namespace {

// PREEMPT_RT: /sys/kernel/realtime (the RT patch, and mainline since 6.12) or the version string
// the build stamps ("#1 SMP PREEMPT_RT Debian 6.1.119-1").
bool preempt_rt(const sys::Sysroot& root) {
  if (auto rt = root.read_line("/sys/kernel/realtime"); rt && *rt == "1") return true;
  auto version = root.read_line("/proc/sys/kernel/version");
  return version &&
         (version->find("PREEMPT_RT") != std::string::npos || version->find("PREEMPT RT") != std::string::npos);
}

std::string policy_text(const sys::ProcessInfo& p) {
  if (p.policy == 1) return fmt::format("SCHED_FIFO {}", p.rt_priority);
  if (p.policy == 2) return fmt::format("SCHED_RR {}", p.rt_priority);
  return p.policy < 0 ? "policy unknown" : "SCHED_OTHER";
}

}  // namespace

Finding check_preempt_rt(const CheckContext& ctx) {
  const bool rt = preempt_rt(ctx.root);
  const bool threadirqs = ctx.cmdline && ctx.cmdline->has("threadirqs");
  const auto procs = sys::read_processes(ctx.root);
  std::vector<const sys::ProcessInfo*> threads;
  for (const auto& p : procs)
    if (sources::irq_thread_irq(p.comm)) threads.push_back(&p);
  const std::string kernel = rt ? "PREEMPT_RT kernel" : threadirqs ? "threadirqs on the command line" : "";
  if (kernel.empty() && threads.empty()) {
    if (procs.empty() && !ctx.root.exists("/proc/sys/kernel/version"))
      return make_finding("preempt-rt", Status::unknown, ctx.targets,
                          "neither /proc/sys/kernel/version nor any process under /proc is readable");
    auto f = make_finding("preempt-rt", Status::ok, ctx.targets,
                          fmt::format("not a PREEMPT_RT kernel, and no IRQ handler threads ({} processes seen): "
                                      "device interrupts run in interrupt context",
                                      procs.size()));
    f.detail = {{"preempt_rt", false}, {"irq_threads", nlohmann::json::array()}};
    return f;
  }
  // The handler threads that may run on a target CPU, highest priority first.
  std::vector<std::pair<const sys::ProcessInfo*, std::vector<int>>> on_targets;
  for (const auto* p : threads) {
    auto allowed = sys::allowed_cpus_of(ctx.root, p->pid);
    if (!allowed) continue;
    std::vector<int> hit;
    for (int c : ctx.targets)
      if (std::binary_search(allowed->begin(), allowed->end(), c)) hit.push_back(c);
    if (!hit.empty()) on_targets.emplace_back(p, hit);
  }
  std::stable_sort(on_targets.begin(), on_targets.end(),
                   [](const auto& a, const auto& b) { return a.first->rt_priority > b.first->rt_priority; });
  std::vector<std::string> parts;
  std::string what = kernel.empty() ? "not a PREEMPT_RT kernel" : kernel;
  nlohmann::json listed = nlohmann::json::array();
  std::vector<int> hit_cpus, irqs;
  if (on_targets.empty()) {
    parts.push_back(fmt::format("{}: none of the {} IRQ handler threads may run on CPU {}", what, threads.size(),
                                cpus_text(ctx.targets)));
  } else {
    std::vector<std::string> names;
    for (const auto& [p, hit] : on_targets) {
      if (names.size() < 3) names.push_back(fmt::format("{} ({})", p->comm, policy_text(*p)));
      hit_cpus.insert(hit_cpus.end(), hit.begin(), hit.end());
      irqs.push_back(*sources::irq_thread_irq(p->comm));
      listed.push_back({{"pid", p->pid},
                        {"comm", p->comm},
                        {"irq", irqs.back()},
                        {"policy", p->policy},
                        {"rt_priority", p->rt_priority},
                        {"cpus", sys::format_cpulist(hit)}});
    }
    std::sort(hit_cpus.begin(), hit_cpus.end());
    hit_cpus.erase(std::unique(hit_cpus.begin(), hit_cpus.end()), hit_cpus.end());
    std::sort(irqs.begin(), irqs.end());
    irqs.erase(std::unique(irqs.begin(), irqs.end()), irqs.end());
    parts.push_back(
        fmt::format("{}: {} IRQ handler thread{} may run on CPU {}: {}{}; each preempts the benchmark "
                    "the moment its device interrupts (noisewatch charges it as irq:<name>), and "
                    "follows its IRQ's affinity",
                    what, on_targets.size(), on_targets.size() == 1 ? "" : "s", cpus_text(hit_cpus),
                    fmt::join(names, ", "), on_targets.size() > names.size() ? ", ..." : ""));
  }
  // RT throttling: a real-time task is stopped once it has run sched_rt_runtime_us of every
  // sched_rt_period_us. Only a --fifo benchmark meets it, which on an RT kernel is the usual way.
  auto runtime = sys::read_sysctl_int(ctx.root, "kernel.sched_rt_runtime_us");
  auto period = sys::read_sysctl_int(ctx.root, "kernel.sched_rt_period_us");
  const bool throttles = rt && runtime && *runtime >= 0 && period && *period > *runtime;
  if (throttles)
    parts.push_back(
        fmt::format("kernel.sched_rt_runtime_us={} of {}: a benchmark run with --fifo is stopped for "
                    "{} ms of every {} ms it runs without a break (RT throttling)",
                    *runtime, *period, (*period - *runtime) / 1000, *period / 1000));
  std::vector<std::string> fix;
  auto kc = fix_context(ctx, ctx.targets);
  kc.irqs = irqs;
  if (!on_targets.empty())
    for (auto& line : knobs::commands(knobs::get("irq-affinity"), kc)) fix.push_back(std::move(line));
  if (throttles)
    for (auto& line : knobs::commands(knobs::get("rt-throttling-off"), kc)) fix.push_back(std::move(line));
  // Without PREEMPT_RT or threadirqs only the few drivers that ask for a thread have one (ACPI's
  // GED on this project's VMs): its IRQ's own finding (irq-affinity) carries the warning.
  Status status = !on_targets.empty() ? (kernel.empty() ? Status::info : Status::warn)
                  : throttles         ? Status::info
                                      : Status::ok;
  auto f = make_finding("preempt-rt", status, on_targets.empty() ? ctx.targets : hit_cpus,
                        fmt::format("{}", fmt::join(parts, "; ")), fix);
  f.detail = {{"preempt_rt", rt}, {"irq_threads", listed}};
  if (runtime) f.detail["sched_rt_runtime_us"] = *runtime;
  return f;
}

}  // namespace nw::check
