// SPDX-License-Identifier: Apache-2.0
// The table of knobs. Runtime knobs are listed in the order `tune` applies them: irqbalance stops
// before the IRQs move, turbo goes off before min = max is read, SMT siblings go offline last.
#include "knobs/catalogue.h"

#include <deque>
#include <span>

#include <fmt/format.h>

#include "knobs/families.h"
#include "sources/kernel_names.h"

namespace nw::knobs {

namespace {

using namespace family;

// Knob::sources holds views: the patterns made here live as long as the catalogue.
std::string_view keep(std::string pattern) {
  static std::deque<std::string> arena;  // a deque never moves what it holds
  return arena.emplace_back(std::move(pattern));
}

// `all` except each "category:name" given, a name ending in `*` read as a prefix.
std::vector<std::string_view> all_but(std::string_view all, std::string_view category,
                                      std::span<const std::string_view> names, std::string_view suffix = "") {
  std::vector<std::string_view> p{all};
  for (std::string_view n : names) p.push_back(keep(fmt::format("!{}:{}{}", category, n, suffix)));
  return p;
}

// "irq:<name>" for each vector name given.
std::vector<std::string_view> vector_sources(std::span<const std::string_view> names) {
  std::vector<std::string_view> p;
  for (std::string_view n : names) p.push_back(keep(fmt::format("irq:{}", n)));
  return p;
}

// Device IRQs: every irq source except the APIC vectors (sources/kernel_names.h), which no
// affinity setting moves.
std::vector<std::string_view> device_irqs() { return all_but("irq:*", "irq", sources::apic_vector_names()); }

// Every task that preempts the benchmark except the kernel's own threads, which can be neither
// stopped nor outranked by a user process's priority: they are isolated or moved instead.
std::vector<std::string_view> user_processes() {
  return all_but("preemption:*", "preemption", sources::kernel_thread_prefixes(), "*");
}

// The kernel's unbound threads (no CPU in their name, sources/kernel_names.h), which kthread_cpus
// keeps on the housekeeping CPUs.
std::vector<std::string_view> unbound_kernel_threads() {
  std::vector<std::string_view> p;
  for (std::string_view prefix : sources::kernel_thread_prefixes())
    if (prefix.find('/') == std::string_view::npos) p.push_back(keep(fmt::format("preemption:{}*", prefix)));
  return p;
}

std::vector<Knob> build() {
  std::vector<Knob> k;
  // --- runtime: `noisewatch tune` sets and restores these -------------------------------------
  k.push_back({.id = "performance-governor",
               .title = "Use the performance governor",
               .scope = Scope::runtime,
               .removes = "frequency changes while the benchmark runs (the governor follows the load)",
               .sources = {"frequency"},
               .findings = {"cpu-governor"},
               .tradeoff = "More power and heat; the frequency stays high when idle.",
               .commands = cmd_governor,
               .plan = plan_governor});
  k.push_back({.id = "turbo-off",
               .title = "Turn turbo/boost off",
               .scope = Scope::runtime,
               .removes = "a clock that depends on temperature and on the other cores' load",
               .sources = {"frequency"},
               .findings = {"turbo-boost"},
               .tradeoff = "Lower peak speed: results are repeatable but slower than production.",
               .commands = cmd_turbo,
               .plan = plan_turbo});
  k.push_back({.id = "fixed-frequency",
               .title = "Fix the frequency range (scaling_min_freq = scaling_max_freq)",
               .scope = Scope::runtime,
               .removes = "frequency changes within the governor's range",
               .sources = {"frequency"},
               .findings = {"frequency-range"},
               .tradeoff = "More power and heat when idle.",
               .commands = cmd_fixed_frequency,
               .plan = plan_fixed_frequency});
  k.push_back({.id = "c-states",
               .title = "Disable the deep idle states of the benchmark CPUs",
               .scope = Scope::runtime,
               .removes = "slow wake-ups from deep C-states",
               .sources = {"wakeup:idle"},
               .findings = {"cpu-idle-states"},
               .tradeoff = "More power and heat when idle; less turbo headroom.",
               .commands = cmd_idle_states,
               .plan = plan_idle_states});
  k.push_back(
      {.id = "aslr-off",
       .title = "Disable address-space randomisation",
       .scope = Scope::runtime,
       .removes = "run-to-run changes of stack, heap and mmap addresses (cache and alignment effects)",
       .sources = {"unexplained"},
       .findings = {"aslr"},
       .tradeoff = "Fixes one memory layout: results hold for that layout only; machine-wide it also "
                   "weakens security (prefer --no-aslr for the benchmark alone).",
       .run_flag = "--no-aslr",
       .commands = cmd_aslr,
       .plan = [](const sys::Sysroot& r, const Targets&) { return plan_sysctl(r, "kernel.randomize_va_space", "0"); }});
  k.push_back(
      {.id = "nmi-watchdog",
       .title = "Turn off the NMI watchdog",
       .scope = Scope::runtime,
       .removes = "a periodic NMI on every CPU (and the PMU counter it holds)",
       .sources = {"nmi:*"},
       .findings = {"nmi-watchdog"},
       .tradeoff = "Hard lockups are no longer detected.",
       .commands = [](const Context& c) { return cmd_sysctl(c, "kernel.nmi_watchdog", "0"); },
       .plan = [](const sys::Sysroot& r, const Targets&) { return plan_sysctl(r, "kernel.nmi_watchdog", "0"); }});
  k.push_back(
      {.id = "numa-balancing",
       .title = "Turn off automatic NUMA balancing",
       .scope = Scope::runtime,
       .removes = "page faults to sample memory accesses, and page migrations during the run",
       .sources = {"fault"},
       .findings = {"numa-balancing"},
       .tradeoff = "Memory stays where it was first touched, even on the wrong node.",
       .commands = [](const Context& c) { return cmd_sysctl(c, "kernel.numa_balancing", "0"); },
       .plan = [](const sys::Sysroot& r, const Targets&) { return plan_sysctl(r, "kernel.numa_balancing", "0"); }});
  k.push_back(
      {.id = "timer-migration",
       .title = "Keep timers on the CPU that armed them",
       .scope = Scope::runtime,
       .removes = "idle CPUs' timers expiring on the busy benchmark CPU",
       .sources = {"softirq:TIMER", "softirq:HRTIMER"},
       .tradeoff = "Idle CPUs wake up for their own timers: a little more power.",
       .commands = [](const Context& c) { return cmd_sysctl(c, "kernel.timer_migration", "0"); },
       .plan = [](const sys::Sysroot& r, const Targets&) { return plan_sysctl(r, "kernel.timer_migration", "0"); }});
  k.push_back({.id = "transparent-hugepages",
               .title = "Make transparent huge pages deterministic (never)",
               .scope = Scope::runtime,
               .removes = "huge pages granted by luck, khugepaged scans and compaction stalls",
               .sources = {"fault", "preemption:khugepaged", "preemption:kcompactd*"},
               .findings = {"transparent-hugepages"},
               .tradeoff = "Large-memory workloads may run slower without huge pages.",
               .commands = cmd_thp,
               .plan = plan_thp});
  k.push_back({.id = "irqbalance",
               .title = "Stop irqbalance while benchmarking",
               .scope = Scope::runtime,
               .removes = "IRQs moved back onto the benchmark CPUs",
               .sources = device_irqs(),
               .findings = {"irqbalance"},
               .tradeoff = "Without irqbalance, IRQ placement no longer follows the load.",
               .needs = "irq-affinity",
               .commands = cmd_irqbalance,
               .plan = plan_irqbalance});
  k.push_back({.id = "irq-affinity",
               .title = "Move device IRQs to the housekeeping CPUs",
               .scope = Scope::runtime,
               .removes = "device interrupts handled on the benchmark CPUs",
               .sources = device_irqs(),
               .findings = {"irq-affinity"},
               .tradeoff = "The housekeeping CPUs handle every device; irqbalance may move them back.",
               .commands = cmd_irq_affinity,
               .plan = plan_irq_affinity});
  k.push_back({.id = "irq-default-affinity",
               .title = "Send new IRQs to the housekeeping CPUs",
               .scope = Scope::runtime,
               .removes = "IRQs set up later (hot-plugged devices) on the benchmark CPUs",
               .sources = device_irqs(),
               .findings = {"irq-affinity"},
               .tradeoff = "New devices share the housekeeping CPUs.",
               .commands = cmd_irq_default_affinity,
               .plan = plan_irq_default_affinity});
  k.push_back({.id = "workqueue-cpumask",
               .title = "Run unbound kernel work queues on the housekeeping CPUs",
               .scope = Scope::runtime,
               .removes = "unbound kworkers preempting the benchmark",
               .sources = {"preemption:kworker/u*"},
               .tradeoff = "Deferred kernel work has fewer CPUs.",
               .commands = cmd_workqueue,
               .plan = plan_workqueue});
  k.push_back({.id = "rt-throttling-off",
               .title = "Let a SCHED_FIFO benchmark run without RT throttling",
               .scope = Scope::runtime,
               .removes = "a --fifo benchmark stopped for the last 50 ms of every second it runs without a break "
                          "(kernel.sched_rt_runtime_us)",
               .findings = {"preempt-rt"},
               .tradeoff = "A real-time task that never sleeps then keeps its CPU for good and starves the CPU's "
                           "kernel threads; asked for by name only (--only rt-throttling-off), with --fifo "
                           "benchmarks on CPUs of their own.",
               .opt_in = true,
               .commands = [](const Context& c) { return cmd_sysctl(c, "kernel.sched_rt_runtime_us", "-1"); },
               .plan = [](const sys::Sysroot& r,
                          const Targets&) { return plan_sysctl(r, "kernel.sched_rt_runtime_us", "-1"); }});

  // --- boot parameters: printed as one boot-loader edit, never applied at run time ------------
  k.push_back({.id = "smt-off",
               .title = "Take the benchmark CPUs' SMT siblings offline",
               .scope = Scope::runtime,
               .removes = "another thread sharing the benchmark's core",
               .sources = {"smt:*"},
               .findings = {"smt"},
               .tradeoff = "Fewer hardware threads for everything else; asked for by name only (--only smt-off).",
               .opt_in = true,
               .commands = cmd_smt,
               .plan = plan_smt});
  k.push_back({.id = "isolcpus",
               .title = "Isolate the benchmark CPUs from the scheduler (isolcpus)",
               .scope = Scope::boot,
               .removes = "other tasks scheduled onto the benchmark CPUs",
               .sources = {"preemption:*"},
               .findings = {"cpu-isolation"},
               .tradeoff = "The isolated CPU gets no load balancing: only tasks pinned there run on it.",
               .boot = [](const std::string& iso, const std::string&) { return "isolcpus=domain,managed_irq," + iso; },
               .boot_key = "isolcpus"});
  k.push_back({.id = "nohz-full",
               .title = "Stop the scheduler tick on the benchmark CPUs (nohz_full)",
               .scope = Scope::boot,
               .removes = "the periodic tick and its softirqs",
               .sources = {"irq:local_timer", "softirq:TIMER", "softirq:SCHED", "softirq:HRTIMER"},
               .findings = {"nohz-full"},
               .tradeoff = "System calls and page faults cost a little more there; the tick stops only while "
                           "one task runs.",
               .boot = [](const std::string& iso, const std::string&) { return "nohz_full=" + iso; },
               .boot_key = "nohz_full"});
  k.push_back({.id = "rcu-nocbs",
               .title = "Offload RCU callbacks from the benchmark CPUs (rcu_nocbs)",
               .scope = Scope::boot,
               .removes = "RCU callbacks run in softirq on the benchmark CPUs",
               .sources = {"softirq:RCU", "preemption:rcu*"},
               .findings = {"rcu-nocbs"},
               .tradeoff = "RCU callbacks run later, on the housekeeping CPUs.",
               .boot = [](const std::string& iso, const std::string&) { return "rcu_nocbs=" + iso + " rcu_nocb_poll"; },
               .boot_key = "rcu_nocbs"});
  k.push_back({.id = "irqaffinity",
               .title = "Send every device IRQ to the housekeeping CPUs from boot (irqaffinity)",
               .scope = Scope::boot,
               .removes = "device interrupts on the benchmark CPUs, from boot on",
               .sources = device_irqs(),
               .findings = {"irq-affinity"},
               .tradeoff = "Devices with many queues share fewer CPUs.",
               .boot = [](const std::string&, const std::string& hk) { return "irqaffinity=" + hk; },
               .boot_key = "irqaffinity",
               .boot_on_targets = false});
  k.push_back({.id = "kthread-cpus",
               .title = "Keep unbound kernel threads on the housekeeping CPUs (kthread_cpus)",
               .scope = Scope::boot,
               .removes = "unbound kernel threads preempting the benchmark",
               .sources = unbound_kernel_threads(),
               .tradeoff = "Unbound kernel threads share the housekeeping CPUs; per-CPU threads stay.",
               .boot = [](const std::string&, const std::string& hk) { return "kthread_cpus=" + hk; },
               .boot_key = "kthread_cpus",
               .boot_on_targets = false});

  // --- the benchmark process only: `noisewatch run` flags --------------------------------------
  k.push_back({.id = "pin-cpu",
               .title = "Pin the benchmark to one CPU",
               .scope = Scope::benchmark,
               .removes = "migrations between CPUs (cold caches, another CPU's noise)",
               .sources = {"migration"},
               .tradeoff = "A multi-threaded benchmark then shares one CPU; pin each thread instead.",
               .run_flag = "--cpu",
               .commands = cmd_pin});
  k.push_back({.id = "sched-fifo",
               .title = "Run the benchmark with a real-time priority (SCHED_FIFO)",
               .scope = Scope::benchmark,
               .removes = "preemption by ordinary tasks",
               .sources = user_processes(),
               .tradeoff = "A CPU-bound RT task starves other tasks on its CPU (RT throttling leaves them 5 %); "
                           "not how it runs in production.",
               .run_flag = "--fifo",
               .run_arg = "1",
               .commands = cmd_fifo});
  k.push_back({.id = "timer-slack",
               .title = "End the benchmark's sleeps on time (timer slack 1 ns)",
               .scope = Scope::benchmark,
               .removes = "sleeps that end up to 50 us late, by a varying amount (the kernel's default timer slack)",
               .sources = {"blocking:sleep"},
               .tradeoff = "More timer interrupts (wake-ups are no longer batched); sleeps no longer behave as in "
                           "production.",
               .run_flag = "--timer-slack",
               .run_arg = "1",
               .commands = cmd_timer_slack});
  k.push_back({.id = "nice",
               .title = "Give the benchmark the highest CFS weight (nice -20)",
               .scope = Scope::benchmark,
               .removes = "part of the preemption by ordinary tasks",
               .sources = user_processes(),
               .tradeoff = "Only a larger time share: the other task still runs, just less often.",
               .run_flag = "--nice",
               .run_arg = "-20",
               .commands = cmd_nice});
  k.push_back({.id = "clean-env",
               .title = "Run with a fixed, minimal environment",
               .scope = Scope::benchmark,
               .removes = "stack alignment changes with the environment's size",
               .sources = {"unexplained"},
               .tradeoff = "Fixes one stack alignment, which may be a lucky or unlucky one.",
               .run_flag = "--clean-env",
               .commands = cmd_clean_env});

  // --- by hand -----------------------------------------------------------------------------
  k.push_back({.id = "stop-process",
               .title = "Stop the process that preempts the benchmark",
               .scope = Scope::manual,
               .removes = "a named process taking the benchmark's CPU",
               .sources = user_processes(),
               .findings = {"load"},
               .tradeoff = "The process's own work waits; a service may need a maintenance window.",
               .commands = cmd_stop_process});
  k.push_back({.id = "cpu-quota",
               .title = "Remove the CPU quota from the benchmark's cgroup",
               .scope = Scope::manual,
               .removes = "CFS bandwidth throttling: the benchmark runnable, but its group's quota used up",
               .sources = {"throttle:*"},
               .findings = {"cpu-quota"},
               .tradeoff = "The container can use more CPU than its quota; give it dedicated CPUs (a cpuset) instead.",
               .commands = cmd_cpu_quota});
  // The container's own settings (family_container.cpp): by hand, in its spec (`tune` never writes
  // to a cgroup it did not create).
  k.push_back({.id = "cpu-quota-cpuset",
               .title = "Drop the CPU quota of a container that has CPUs of its own, in its spec",
               .scope = Scope::manual,
               .removes = "throttling of a pinned container: its quota stops it in bursts on CPUs no one else uses",
               .findings = {"cpu-quota-cpuset"},
               .tradeoff = "Nothing caps the container below its CPUs any more; it may use all of them.",
               .commands = cmd_cpu_quota_cpuset});
  k.push_back({.id = "memory-limit",
               .title = "Give the benchmark's container more memory than it uses, in its spec",
               .scope = Scope::manual,
               .removes = "reclaim stalls (and the OOM killer) at the container's memory limit",
               .findings = {"memory-limit"},
               .tradeoff = "The container may take memory other containers on the host counted on.",
               .commands = cmd_memory_limit});
  k.push_back(
      {.id = "container-cpuset",
       .title = "Pin the benchmark's container to CPUs of its own (a cpuset), in its spec",
       .scope = Scope::manual,
       .removes = "other containers' and the host's tasks on the benchmark's CPUs, and migrations across all of them",
       .findings = {"container-unpinned"},
       .tradeoff = "The container can use only those CPUs; the rest of the host loses them.",
       .commands = cmd_container_cpuset});
  return k;
}

}  // namespace

const std::vector<NoKnob>& without_knob() {
  static const std::vector<NoKnob> none = {
      {{"contention:*"},
       "the benchmark's own threads: a setup to choose (more CPUs or fewer threads, the report's "
       "more-cpus advice), not the machine's noise"},
      {{"blocking"},
       "the benchmark's own blocking: the report's advice is about the workload (workload-io, "
       "workload-wait), not a machine setting"},
      {{"blocking:io:*"}, "the benchmark's own I/O: made repeatable in the workload (workload-io)"},
      {{"blocking:wait:*"}, "the benchmark waiting on another task: that party's timing (workload-wait)"},
      {{"blocking:other"}, "the benchmark's own blocking, cause unknown"},
      {{"steal"}, "the hypervisor's: nothing inside the guest removes it (a dedicated host does)"},
      {{"irq:reschedule"},
       "IPIs that other CPUs send with their work: isolcpus and nohz_full send fewer, no knob "
       "of their own"},
      {{"irq:call_function", "irq:call_function_single"},
       "IPIs that other CPUs send with their work (TLB shootdowns, cross calls)"},
      {{"irq:irq_work"}, "deferred work of the CPU's own kernel code (perf, printk, RCU)"},
      {vector_sources(sources::hardware_event_vector_names()),
       "hardware events (thermal, machine check, errors): a hardware matter, not a setting"},
      {{"irq:x86_platform_ipi"}, "the platform's own interrupt (hypervisor callbacks): no setting in the guest"},
      {{"irq:reboot"}, "sent only to stop the machine"},
      {{"softirq:HI", "softirq:NET_TX", "softirq:NET_RX", "softirq:BLOCK", "softirq:IRQ_POLL", "softirq:TASKLET"},
       "raised by device IRQs and run where they were raised: the IRQ knobs move them with it"},
  };
  return none;
}

const std::vector<Knob>& catalogue() {
  static const std::vector<Knob> knobs = build();
  return knobs;
}

}  // namespace nw::knobs
