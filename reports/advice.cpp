// One entry per knob. Each entry looks at the attributed sources (and patterns) and, when the
// knob would remove a material share of the variance, returns a recommendation with the exact
// commands for this machine: the benchmark's CPU, the housekeeping CPUs, the named process/IRQ.
#include "reports/advice.h"
#include "reports/advice_windows.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "reports/sources.h"
#include "sources/kernel_names.h"
#include "sources/vocabulary.h"
#include "system/cpulist.h"

namespace nw::report {

namespace {

struct Context {
  const AdviceInput& in;
  std::string target;        // "1" or "2-3": the benchmark's CPUs
  std::string housekeeping;  // every other online CPU
  std::string bench_comm;
  std::string cmd;           // the benchmark command, shell-quoted
  std::string hk_mask;       // housekeeping CPUs as a hex cpumask
};

using Predicate = std::function<bool(const std::string& source)>;

constexpr int kPidsNamed = 4;
// Beyond this many runs, more runs are no cure: the noise has to go first.
constexpr int kMaxRunsToSuggest = 200;

struct Knob {
  const char* id;
  std::function<void(const Context&, std::vector<Recommendation>&)> propose;
};

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string hex_mask(const std::vector<int>& cpus) {
  if (cpus.empty()) return "0";
  int top = *std::max_element(cpus.begin(), cpus.end());
  std::vector<unsigned> nibbles(size_t(top / 4 + 1), 0);
  for (int c : cpus) nibbles[size_t(c / 4)] |= 1u << (c % 4);
  std::string out;
  for (size_t i = nibbles.size(); i-- > 0;) {
    out += "0123456789abcdef"[nibbles[i]];
    if (i % 8 == 0 && i != 0) out += ',';
  }
  return out;
}

// Material sources the predicate accepts, and the sum of their (positive) shares.
std::pair<std::vector<std::string>, double> addressed(const Context& c, const Predicate& p) {
  std::vector<std::string> names;
  double share = 0;
  for (const auto& r : c.in.rows) {
    if (r.share < kMaterialShare || !p(r.source)) continue;
    names.push_back(r.source);
    share += r.share;
  }
  return {names, std::min(share, 1.0)};  // a knob cannot remove more than all of the variance
}

std::string name_of(const std::string& s) { return sources::parse(s).name; }
bool machine_preemption(const Context& c, const std::string& s) {
  auto id = sources::parse(s);
  return id.category == sources::kPreemption && !sources::is_contention(id, c.bench_comm);
}
bool device_irq(const std::string& s) {
  auto id = sources::parse(s);
  return id.category == sources::kIrq && !sources::is_apic_vector(id.name);
}

std::vector<std::string> kernel_cmdline(const std::string& params) {
  return {fmt::format("sed -i 's/^GRUB_CMDLINE_LINUX=\"/&{} /' /etc/default/grub", params),
          "update-grub && reboot"};
}

// Adds a recommendation when the predicate addresses enough of the variance.
void propose_if(const Context& c, std::vector<Recommendation>& out, const char* id, std::string title,
                const Predicate& p, std::vector<std::string> commands, bool reboot, std::string tradeoff) {
  auto [names, share] = addressed(c, p);
  if (share < kMinAddressedShare) return;
  out.push_back({id, std::move(title), std::move(commands), std::move(names), reboot, std::move(tradeoff), share});
}

int quieter_cpu(const RunRecord& rec, bool avoid_current = true) {
  // CPU 0 takes the boot-time IRQs, unbound timers and most housekeeping; the last CPU is
  // usually the quietest one noisewatch can name without a `check` measurement.
  int online = rec.host.online_cpus;
  if (online < 2) return -1;
  for (int cpu = online - 1; cpu > 0; --cpu)
    if (!avoid_current || std::find(rec.cpus.begin(), rec.cpus.end(), cpu) == rec.cpus.end()) return cpu;
  return -1;
}

const std::vector<Knob>& catalogue() {
  static const std::vector<Knob> knobs = {
      {"stop-process",
       [](const Context& c, auto& out) {
         for (const auto& r : c.in.rows) {
           if (r.share < kMinAddressedShare || !machine_preemption(c, r.source)) continue;
           auto comm = name_of(r.source);
           if (is_kernel_thread(comm)) continue;  // isolated or moved instead, never stopped
           // A short-lived command seen in many runs has many pids: name a few, not all.
           std::string pids;
           int listed = 0;
           if (r.detail.is_object() && r.detail.contains("pids") && r.detail["pids"].is_array())
             for (const auto& p : r.detail["pids"])
               if (listed++ < kPidsNamed) pids += (pids.empty() ? "" : ",") + p.dump();
           std::vector<std::string> cmds;
           if (!pids.empty()) cmds.push_back(fmt::format("ps -o pid,unit,args -p {}   # which service is it?", pids));
           cmds.push_back(fmt::format("systemctl stop <unit>   # or pause it: pkill -STOP -x {}", shell_quote(comm)));
           cmds.push_back(fmt::format("pkill -CONT -x {}   # resume it after benchmarking", shell_quote(comm)));
           out.push_back({"stop-process:" + comm,
                          fmt::format("Stop {}{} while benchmarking: it preempted the benchmark", comm,
                                      pids.empty() ? "" : " (pid " + pids + (listed > kPidsNamed ? ", …" : "") + ")"),
                          cmds, {r.source}, false,
                          "The process's own work waits; a service may need a maintenance window.", std::min(r.share, 1.0)});
         }
       }},
      {"move-irq",
       [](const Context& c, auto& out) {
         for (const auto& r : c.in.rows) {
           if (r.share < kMinAddressedShare || !device_irq(r.source)) continue;
           auto name = name_of(r.source);
           std::vector<std::string> cmds;
           std::string title;
           if (r.detail.is_object() && r.detail.contains("irq") && r.detail["irq"].is_number_integer()) {
             int irq = r.detail["irq"].get<int>();
             cmds.push_back(fmt::format("echo {} > /proc/irq/{}/smp_affinity_list", c.housekeeping, irq));
             title = fmt::format("Move IRQ {} ({}) off CPU {}", irq, name, c.target);
           } else {
             cmds.push_back(fmt::format("grep -n {} /proc/interrupts   # the first column is the IRQ number N", shell_quote(name)));
             cmds.push_back(fmt::format("echo {} > /proc/irq/N/smp_affinity_list", c.housekeeping));
             title = fmt::format("Move IRQ {} off CPU {}", name, c.target);
           }
           out.push_back({"move-irq:" + name, title, cmds, {r.source}, false,
                          "The housekeeping CPUs handle the device; irqbalance may move it back.", std::min(r.share, 1.0)});
         }
       }},
      {"more-cpus",
       [](const Context& c, auto& out) {
         // The workload's own threads waiting for each other's CPU: not noise to remove, a setup
         // to choose. Never "stop" or "move" them.
         auto own = [&](const std::string& s) { return sources::is_contention(sources::parse(s), c.bench_comm); };
         // One more CPU, the highest one not in use (CPU 0 too when it is the only one left).
         std::vector<int> wider = c.in.rec.cpus;
         for (int cpu = c.in.rec.host.online_cpus - 1; cpu >= 0; --cpu)
           if (std::find(wider.begin(), wider.end(), cpu) == wider.end()) {
             wider.push_back(cpu);
             break;
           }
         std::sort(wider.begin(), wider.end());
         std::vector<std::string> cmds;
         if (c.in.rec.pinned && wider.size() > c.in.rec.cpus.size())
           cmds.push_back(fmt::format("noisewatch --cpu {} -- {}   # one CPU per busy thread", sys::format_cpulist(wider), c.cmd));
         cmds.push_back("# or run the benchmark with fewer threads than it has CPUs");
         propose_if(c, out, "more-cpus",
                    fmt::format("Your benchmark's own threads compete for CPU {}: give it more CPUs (--cpu LIST) or "
                                "fewer threads", c.target),
                    own, std::move(cmds), false, "A different parallel setup measures a different thing.");
       }},
      {"pin-cpu",
       [](const Context& c, auto& out) {
         if (c.in.rec.pinned) return;
         int cpu = std::max(0, quieter_cpu(c.in.rec, false));
         propose_if(c, out, "pin-cpu", fmt::format("Pin the benchmark to one CPU (CPU {})", cpu),
                    [](const std::string& s) { return s == "migration"; },
                    {fmt::format("noisewatch --cpu {} -- {}", cpu, c.cmd), fmt::format("taskset -c {} {}", cpu, c.cmd)},
                    false, "A multi-threaded benchmark then shares one CPU; pin each thread instead.");
       }},
      {"quieter-cpu",
       [](const Context& c, auto& out) {
         auto p = [&](const std::string& s) {
           auto cat = sources::parse(s).category;
           return machine_preemption(c, s) || cat == sources::kIrq || cat == sources::kSoftirq;
         };
         int cpu = quieter_cpu(c.in.rec);
         const auto& cpus = c.in.rec.cpus;
         bool on_cpu0 = c.in.rec.pinned && std::find(cpus.begin(), cpus.end(), 0) != cpus.end();
         if (on_cpu0 && cpu > 0)
           propose_if(c, out, "quieter-cpu", fmt::format("Run on CPU {} instead of CPU 0, which takes most IRQs and housekeeping", cpu),
                      p, {fmt::format("noisewatch --cpu {} -- {}", cpu, c.cmd)}, false,
                      "None for measurement; production runs may still land on CPU 0.");
         else if (c.in.rec.pinned)
           propose_if(c, out, "quieter-cpu", fmt::format("Look for a quieter CPU than CPU {}", c.target), p,
                      {"noisewatch check --duration 10   # recommended_cpu names the quietest CPU",
                       "noisewatch --cpu <recommended_cpu> -- " + c.cmd},
                      false, "None for measurement; it only moves the benchmark, the noise stays.");
       }},
      {"isolcpus",
       [](const Context& c, auto& out) {
         propose_if(c, out, "isolcpus", fmt::format("Isolate CPU {} from the scheduler (isolcpus)", c.target),
                    [&](const std::string& s) { return machine_preemption(c, s); },
                    kernel_cmdline("isolcpus=domain,managed_irq," + c.target), true,
                    "The isolated CPU gets no load balancing: only tasks pinned there run on it.");
       }},
      {"kthread-cpus",
       [](const Context& c, auto& out) {
         propose_if(c, out, "kthread-cpus", fmt::format("Keep kernel threads on CPU {} (kthread_cpus)", c.housekeeping),
                    [&](const std::string& s) { return machine_preemption(c, s) && is_kernel_thread(name_of(s)) &&
                                                       name_of(s).rfind("kworker/", 0) != 0 && name_of(s).find('/') == std::string::npos; },
                    kernel_cmdline("kthread_cpus=" + c.housekeeping), true,
                    "Unbound kernel threads share the housekeeping CPUs; per-CPU threads stay.");
       }},
      {"workqueue-cpumask",
       [](const Context& c, auto& out) {
         propose_if(c, out, "workqueue-cpumask", fmt::format("Run unbound kernel work queues on CPU {} only", c.housekeeping),
                    [&](const std::string& s) { return machine_preemption(c, s) && name_of(s).rfind("kworker/u", 0) == 0; },
                    {fmt::format("echo {} > /sys/devices/virtual/workqueue/cpumask", c.hk_mask)}, false,
                    "Deferred kernel work has fewer CPUs; undone at reboot.");
       }},
      {"nohz-full",
       [](const Context& c, auto& out) {
         propose_if(c, out, "nohz-full", fmt::format("Stop the scheduler tick on CPU {} (nohz_full)", c.target),
                    [](const std::string& s) { return sources::is_tick(sources::parse(s)); },
                    kernel_cmdline("nohz_full=" + c.target), true,
                    "System calls and page faults cost a little more on that CPU; the tick only stops "
                    "while one task runs there.");
       }},
      {"rcu-nocbs",
       [](const Context& c, auto& out) {
         propose_if(c, out, "rcu-nocbs", fmt::format("Offload RCU callbacks from CPU {} (rcu_nocbs)", c.target),
                    [&](const std::string& s) {
                      return s == "softirq:RCU" || (machine_preemption(c, s) && name_of(s).rfind("rcu", 0) == 0);
                    },
                    kernel_cmdline("rcu_nocbs=" + c.target + " rcu_nocb_poll"), true,
                    "RCU callbacks run later, on the housekeeping CPUs.");
       }},
      {"irqaffinity",
       [](const Context& c, auto& out) {
         propose_if(c, out, "irqaffinity", fmt::format("Send every device IRQ to CPU {} from boot (irqaffinity)", c.housekeeping),
                    device_irq, kernel_cmdline("irqaffinity=" + c.housekeeping), true,
                    "Devices with many queues share fewer CPUs.");
       }},
      {"irqbalance",
       [](const Context& c, auto& out) {
         propose_if(c, out, "irqbalance", fmt::format("Keep irqbalance off CPU {}", c.target), device_irq,
                    {"systemctl stop irqbalance",
                     fmt::format("echo 'IRQBALANCE_BANNED_CPULIST={}' >> /etc/default/irqbalance && systemctl restart irqbalance   # or keep it, banned from the CPU", c.target)},
                    false, "Without irqbalance, IRQ placement no longer follows the load.");
       }},
      {"sched-fifo",
       [](const Context& c, auto& out) {
         propose_if(c, out, "sched-fifo", "Run the benchmark with a real-time priority (SCHED_FIFO)",
                    [&](const std::string& s) { return machine_preemption(c, s) && !is_kernel_thread(name_of(s)); },
                    {"chrt -f 1 " + c.cmd}, false,
                    "A CPU-bound RT task starves other tasks on its CPU (RT throttling leaves them 5 %); "
                    "not how it runs in production.");
       }},
      {"nice",
       [](const Context& c, auto& out) {
         propose_if(c, out, "nice", "Give the benchmark the highest CFS weight (nice -20)",
                    [&](const std::string& s) { return machine_preemption(c, s) && !is_kernel_thread(name_of(s)); },
                    {"nice -n -20 " + c.cmd}, false,
                    "Only a larger time share: the other task still runs, just less often.");
       }},
      {"performance-governor",
       [](const Context& c, auto& out) {
         propose_if(c, out, "performance-governor", "Use the performance governor with min = max frequency",
                    [](const std::string& s) { return s == "frequency"; },
                    {"cpupower frequency-set -g performance",
                     fmt::format("cpupower -c {0} frequency-set -d $(cat /sys/devices/system/cpu/cpu{1}/cpufreq/cpuinfo_max_freq) "
                                 "-u $(cat /sys/devices/system/cpu/cpu{1}/cpufreq/cpuinfo_max_freq)",
                                 c.target, c.in.rec.cpus.empty() ? 0 : c.in.rec.cpus.front())},
                    false, "More power and heat; frequency stays high when idle.");
       }},
      {"turbo-off",
       [](const Context& c, auto& out) {
         propose_if(c, out, "turbo-off", "Turn turbo/boost off so the frequency cannot vary with temperature and load",
                    [](const std::string& s) { return s == "frequency"; },
                    {"echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo   # intel_pstate",
                     "echo 0 > /sys/devices/system/cpu/cpufreq/boost   # acpi-cpufreq, amd-pstate"},
                    false, "Lower peak speed: results are repeatable but slower than production.");
       }},
      {"smt-off",
       [](const Context& c, auto& out) {
         propose_if(c, out, "smt-off", "Turn SMT off, or keep the benchmark's sibling CPU idle",
                    [](const std::string& s) { return sources::parse(s).category == sources::kSmt; },
                    {"echo off > /sys/devices/system/cpu/smt/control",
                     "cat /sys/devices/system/cpu/cpu" + std::to_string(c.in.rec.cpus.empty() ? 0 : c.in.rec.cpus.front()) +
                         "/topology/thread_siblings_list   # or isolate both siblings"},
                    false, "Half the hardware threads: less throughput for everything else.");
       }},
      {"c-states",
       [](const Context& c, auto& out) {
         propose_if(c, out, "c-states", "Disable deep C-states so the CPU wakes up fast",
                    [](const std::string& s) { return s == "wakeup:idle"; },
                    {"cpupower idle-set -D 10   # disable idle states with exit latency above 10 us",
                     "# or hold /dev/cpu_dma_latency open with the value 0 while benchmarking",
                     "# or boot with processor.max_cstate=1 intel_idle.max_cstate=1"},
                    false, "More power and heat when idle; less turbo headroom.");
       }},
      {"nmi-watchdog",
       [](const Context& c, auto& out) {
         propose_if(c, out, "nmi-watchdog", "Turn off the NMI watchdog",
                    [](const std::string& s) { return sources::parse(s).category == sources::kNmi; },
                    {"sysctl -w kernel.nmi_watchdog=0"}, false, "Hard lockups are no longer detected.");
       }},
      {"transparent-hugepages",
       [](const Context& c, auto& out) {
         propose_if(c, out, "transparent-hugepages", "Make transparent huge pages deterministic (never, or always)",
                    [&](const std::string& s) {
                      return s == "fault" || s == "preemption:khugepaged" || s == "preemption:kcompactd0";
                    },
                    {"echo never > /sys/kernel/mm/transparent_hugepage/enabled",
                     "echo never > /sys/kernel/mm/transparent_hugepage/defrag"},
                    false, "Large-memory workloads may run slower without huge pages.");
       }},
      {"dedicated-host",
       [](const Context& c, auto& out) {
         if (!c.in.rec.host.virtualized) return;
         propose_if(c, out, "dedicated-host", "Benchmark on a dedicated host or bare metal",
                    [](const std::string& s) { return s == "steal" || s == "unexplained"; },
                    {"# ask for dedicated vCPUs (CPU pinning on the host) or a bare-metal instance"}, false,
                    "Cost; a shared VM is what many production services run on.");
       }},
      {"fix-inputs",
       [](const Context& c, auto& out) {
         double share = c.in.split.instructions_share.value_or(0);
         if (share < kMinAddressedShare) return;
         out.push_back({"fix-inputs", "Make the workload do the same work every run (fixed seeds and inputs)",
                        {"# the retired-instruction count varies with the run time: seed RNGs with a constant, fix input data"},
                        {"unexplained"}, false, "One fixed input may not represent the real ones.", share});
       }},
      {"workload-io",
       [](const Context& c, auto& out) {
         propose_if(c, out, "workload-io", "Make the benchmark's I/O repeatable (inputs in tmpfs, warm page cache)",
                    [](const std::string& s) { return s == "blocking"; },
                    {"cp -r INPUTS /dev/shm/   # and point the benchmark at them", "sync; echo 3 > /proc/sys/vm/drop_caches   # or always start cold"},
                    false, "The benchmark no longer measures the storage it will meet in production.");
       }},
      {"aslr-off",
       [](const Context& c, auto& out) {
         if (c.in.rec.host.virtualized) return;  // on a VM the host explains `unexplained` first
         propose_if(c, out, "aslr-off", "Disable address-space randomisation for the benchmark (may remove layout noise)",
                    [](const std::string& s) { return s == "unexplained"; },
                    {"setarch -R " + c.cmd}, false,
                    "Fixes one memory layout: results hold for that layout only, not for the layouts production gets.");
       }},
      {"clean-env",
       [](const Context& c, auto& out) {
         if (c.in.rec.host.virtualized) return;
         propose_if(c, out, "clean-env", "Run with a fixed, minimal environment (stack alignment depends on its size)",
                    [](const std::string& s) { return s == "unexplained"; },
                    {"env -i PATH=\"$PATH\" " + c.cmd}, false,
                    "Fixes one stack alignment, which may be a lucky or unlucky one.");
       }},
      {"more-warmup",
       [](const Context& c, auto& out) {
         if (!c.in.patterns.slow_first.found) return;
         out.push_back({"more-warmup", "Add warm-up runs: the first measured run was slow",
                        {"noisewatch --warmup 3 -- " + c.cmd}, {}, false,
                        "Cold-cache behaviour is no longer measured.", 0});
       }},
      {"more-runs",
       [](const Context& c, auto& out) {
         const auto& p = c.in.patterns;
         bool too_few = !c.in.attributable && p.runs < 5;
         if (!too_few && (size_t(p.runs_needed) <= p.runs || p.runs_needed > kMaxRunsToSuggest)) return;
         int runs = std::max(p.runs_needed, 10);
         out.push_back({"more-runs", fmt::format("Measure more runs ({} for a mean within ±{:.0f} %)", runs, kTargetPrecision * 100),
                        {fmt::format("noisewatch --runs {} -- {}", runs, c.cmd)}, {}, false, "Takes longer.", 0});
       }},
  };
  return knobs;
}

}  // namespace

Tier tier_of(const Recommendation& r) {
  if (r.addresses.empty()) return Tier::measurement;
  bool only_unexplained = std::all_of(r.addresses.begin(), r.addresses.end(),
                                      [](const std::string& s) { return s == "unexplained"; });
  // fix-inputs follows the measured instruction count: it is not a guess.
  return only_unexplained && r.id != "fix-inputs" ? Tier::speculative : Tier::measured;
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) {
    if (!cmd.empty()) cmd += ' ';
    cmd += shell_quote(a);
  }
  return cmd;
}

std::vector<std::string> knob_ids() {
  std::vector<std::string> ids;
  for (const auto& k : catalogue()) ids.emplace_back(k.id);
  return ids;
}

std::vector<Recommendation> recommend(const AdviceInput& in) {
  std::vector<int> online;
  for (int cpu = 0; cpu < in.rec.host.online_cpus; ++cpu)
    if (std::find(in.rec.cpus.begin(), in.rec.cpus.end(), cpu) == in.rec.cpus.end()) online.push_back(cpu);
  Context c{in, in.rec.cpus.empty() ? std::string("<cpu>") : sys::format_cpulist(in.rec.cpus),
            online.empty() ? std::string("<housekeeping cpus>") : sys::format_cpulist(online),
            sources::benchmark_comm(in.rec.command), {}, hex_mask(online)};
  c.cmd = shell_command(in.rec.command);
  if (c.cmd.empty()) c.cmd = "./bench";

  std::vector<Recommendation> out;
  for (const auto& k : catalogue()) k.propose(c, out);
  // Without a reliable attribution, knobs chosen from the shares would be guesses: keep only
  // the advice about the measurement itself.
  if (!in.attributable)
    std::erase_if(out, [](const Recommendation& r) { return !r.addresses.empty(); });
  adapt_to_windows(in.rec, out);
  // Measured sources first, then knobs that may reduce `unexplained`, then advice about the
  // measurement itself (share 0); by share within each tier, catalogue order on ties.
  std::stable_sort(out.begin(), out.end(), [&](const Recommendation& a, const Recommendation& b) {
    if (tier_of(a) != tier_of(b)) return tier_of(a) < tier_of(b);
    return a.share > b.share;
  });
  return out;
}

}  // namespace nw::report
