// SPDX-License-Identifier: Apache-2.0
// Which knobs this run calls for. Each entry looks at the attributed sources (and patterns) and,
// when a knob would remove a material share of the variance, recommends it. What a knob is, its
// commands and its trade-off come from the one catalogue (src/knobs/), rendered for this run's
// CPUs, housekeeping CPUs and command, and so does which sources a knob addresses (Knob::sources);
// here are only the decisions: which knobs to consider, when a share is worth one, the ranking, and
// the wording that names this benchmark.
#include "reports/advice.h"
#include "reports/advice_windows.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/shell_words.h"
#include "knobs/catalogue.h"
#include "record/source_detail.h"
#include "reports/source_matrix.h"
#include "sources/vocabulary.h"
#include "system/cpulist.h"

namespace nw::report {

namespace {

struct Context {
  const AdviceInput& in;
  knobs::Context knob;       // what the catalogue renders commands for
  std::string target;        // "1" or "2-3": the benchmark's CPUs
  std::string housekeeping;  // the CPUs left for everything else
  std::string bench_comm;
};

using Predicate = std::function<bool(const std::string& source)>;
using Out = std::vector<Recommendation>;

constexpr int kPidsNamed = 4;
// Beyond this many runs, more runs are no cure: the noise has to go first.
constexpr int kMaxRunsToSuggest = 200;

struct Entry {
  const char* id;
  std::function<void(const Context&, Out&)> propose;
};

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
// Whether catalogue knob `knob` addresses the source (its `sources`, src/knobs/catalogue.cpp).
// The benchmark's own threads (contention, or records that named them `preemption:<its comm>`)
// are never the machine's noise, whatever pattern they match.
bool covers(const Context& c, std::string_view knob, const std::string& s) {
  return !sources::is_contention(sources::parse(s), c.bench_comm) && knobs::get(knob).addresses(s);
}

// A recommendation of catalogue knob `k`: its commands, its trade-off, and the rerun that
// applies it to this benchmark alone, so that the user can see the noise go.
Recommendation of_knob(const knobs::Knob& k, const knobs::Context& kc, std::string id, std::string title,
                       std::vector<std::string> addresses, double share) {
  auto cmds = knobs::commands(k, kc);
  std::string again = knobs::rerun(k, kc);
  if (!again.empty() &&
      std::none_of(cmds.begin(), cmds.end(), [&](const std::string& l) { return l.starts_with(again); }))
    cmds.push_back(again + "   # or rerun with it to prove it: for this run only, then restored");
  return {std::move(id), std::move(title), std::move(cmds), std::move(addresses), k.reboot(), std::string(k.tradeoff),
          share};
}

// Recommends catalogue knob `knob` when the predicate addresses enough of the variance.
void propose_knob(const Context& c, Out& out, std::string_view knob, std::string title, const Predicate& p,
                  const knobs::Context* kc = nullptr) {
  auto [names, share] = addressed(c, p);
  if (share < kMinAddressedShare) return;
  out.push_back(
      of_knob(knobs::get(knob), kc ? *kc : c.knob, std::string(knob), std::move(title), std::move(names), share));
}

// The same for advice that is no machine knob (the setup of the measurement or of the workload).
void propose_if(const Context& c, Out& out, const char* id, std::string title, const Predicate& p,
                std::vector<std::string> commands, std::string tradeoff) {
  auto [names, share] = addressed(c, p);
  if (share < kMinAddressedShare) return;
  out.push_back({id, std::move(title), std::move(commands), std::move(names), false, std::move(tradeoff), share});
}

knobs::Context on_cpus(const Context& c, std::vector<int> cpus) {
  knobs::Context kc = c.knob;
  kc.cpus = std::move(cpus);
  return kc;
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

void stop_processes(const Context& c, Out& out) {
  for (const auto& r : c.in.rows) {
    if (r.share < kMinAddressedShare || !covers(c, "stop-process", r.source)) continue;
    auto comm = name_of(r.source);
    // A short-lived command seen in many runs has many pids: name a few, not all.
    knobs::Context kc = c.knob;
    kc.process = comm;
    bool more = false;
    for (int64_t p : SourceDetail::from_json(r.detail).pids) {
      if (kc.pids.size() == kPidsNamed) {
        more = true;
        break;
      }
      kc.pids.push_back(int(p));
    }
    std::string pids = kc.pids.empty() ? "" : fmt::format(" (pid {}{})", fmt::join(kc.pids, ","), more ? ", …" : "");
    out.push_back(of_knob(knobs::get("stop-process"), kc, "stop-process:" + comm,
                          fmt::format("Stop {}{} while benchmarking: it preempted the benchmark", comm, pids),
                          {r.source}, std::min(r.share, 1.0)));
  }
  // A neighbour that follows the unexplained time (reports/neighbours.h) is a lead, not a
  // measured source: stopping it may reduce `unexplained`, by up to all of it.
  double unexplained = 0;
  for (const auto& r : c.in.rows)
    if (r.source == sources::kUnexplained) unexplained = std::clamp(r.share, 0.0, 1.0);
  for (const auto& lead : c.in.leads) {
    std::string id = "stop-process:" + lead.comm;
    if (std::any_of(out.begin(), out.end(), [&](const Recommendation& r) { return r.id == id; })) continue;
    knobs::Context kc = c.knob;
    kc.process = lead.comm;
    kc.pids = {lead.pid};
    out.push_back(
        of_knob(knobs::get("stop-process"), kc, std::move(id),
                fmt::format("Stop {} while benchmarking (or move it off the CPUs that share a cache or memory "
                            "with CPU {}): it was busy in the slow runs",
                            describe_lead(lead), c.target),
                {std::string(sources::kUnexplained)}, unexplained));
  }
}

// The benchmark waited on a task outside it (a server, a daemon, a kworker): that party's timing
// is part of every run. Not a knob: the workload's doing, named so the user can look at it.
void waited_on(const Context& c, Out& out) {
  for (const auto& r : c.in.rows) {
    auto id = sources::parse(r.source);
    if (r.share < kMinAddressedShare || sources::blocking_part(id) != sources::BlockingPart::wait) continue;
    std::string who = sources::blocking_party(id);
    auto waker = SourceDetail::from_json(r.detail).pid;
    std::string pid = waker ? fmt::format(" (pid {})", *waker) : "";
    out.push_back(
        {"workload-wait:" + who,
         fmt::format("The benchmark waits on {}{}: the variance of that wait is the workload's, not noise", who, pid),
         {fmt::format("# what does the benchmark wait for from {}? Make that party repeatable (warm it up, give "
                      "it its own CPU: noisewatch check names a quiet one), or leave it out of the timed part",
                      who)},
         {r.source},
         false,
         "Its waiting is part of what the benchmark measures.",
         std::min(r.share, 1.0)});
  }
}

void move_irqs(const Context& c, Out& out) {
  for (const auto& r : c.in.rows) {
    if (r.share < kMinAddressedShare || !covers(c, "irq-affinity", r.source)) continue;
    auto name = name_of(r.source);
    knobs::Context kc = c.knob;
    std::string title;
    const auto detail = SourceDetail::from_json(r.detail);
    if (detail.irq) {
      kc.irqs = {*detail.irq};
      title = fmt::format("Move IRQ {} ({}) off CPU {}", kc.irqs.front(), name, c.target);
    } else {
      // Without its number (an older record) the catalogue moves every device IRQ, this one too.
      title = fmt::format("Move the device IRQs off CPU {} ({} among them)", c.target, name);
    }
    // PREEMPT_RT (or threadirqs): the handler is a SCHED_FIFO 50 thread, which outranks the
    // benchmark even with --fifo 1, so moving the IRQ (its thread follows) is the remedy.
    if (detail.threaded_count.value_or(0) > 0)
      title += fmt::format(
          ": its handler runs in a real-time thread (irq/{}-…, SCHED_FIFO 50) that preempts the "
          "benchmark at once, and follows the IRQ",
          detail.irq ? std::to_string(*detail.irq) : "NN");
    out.push_back(
        of_knob(knobs::get("irq-affinity"), kc, "move-irq:" + name, title, {r.source}, std::min(r.share, 1.0)));
  }
}

void more_cpus(const Context& c, Out& out) {
  // The workload's own threads waiting for each other's CPU: not noise to remove, a setup to
  // choose. Never "stop" or "move" them.
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
    cmds.push_back(knobs::rerun(knobs::get("pin-cpu"), on_cpus(c, wider)) + "   # one CPU per busy thread");
  cmds.push_back("# or run the benchmark with fewer threads than it has CPUs");
  propose_if(
      c, out, "more-cpus",
      fmt::format("Your benchmark's own threads compete for CPU {}: give it more CPUs (--cpu LIST) or fewer threads",
                  c.target),
      own, std::move(cmds), "A different parallel setup measures a different thing.");
}

void quieter(const Context& c, Out& out) {
  auto p = [&](const std::string& s) {
    auto cat = sources::parse(s).category;
    return machine_preemption(c, s) || cat == sources::kIrq || cat == sources::kSoftirq;
  };
  int cpu = quieter_cpu(c.in.rec);
  const auto& cpus = c.in.rec.cpus;
  bool on_cpu0 = c.in.rec.pinned && std::find(cpus.begin(), cpus.end(), 0) != cpus.end();
  if (on_cpu0 && cpu > 0)
    propose_if(c, out, "quieter-cpu",
               fmt::format("Run on CPU {} instead of CPU 0, which takes most IRQs and housekeeping", cpu), p,
               {knobs::rerun(knobs::get("pin-cpu"), on_cpus(c, {cpu}))},
               "None for measurement; production runs may still land on CPU 0.");
  else if (c.in.rec.pinned)
    propose_if(c, out, "quieter-cpu", fmt::format("Look for a quieter CPU than CPU {}", c.target), p,
               {"noisewatch check --duration 10   # recommended_cpu names the quietest CPU",
                "noisewatch --cpu <recommended_cpu> -- " + c.knob.command},
               "None for measurement; it only moves the benchmark, the noise stays.");
}

using Title = std::function<std::string(const Context&)>;
using When = std::function<bool(const Context&)>;

// An entry that recommends catalogue knob `id` when the sources it addresses are material (and,
// for some, only on some machines).
Entry knob(const char* id, Title title, When when = nullptr) {
  return {id, [=](const Context& c, Out& out) {
            if (when && !when(c)) return;
            propose_knob(c, out, id, title(c), [&](const std::string& s) { return covers(c, id, s); });
          }};
}
Title text(const char* title) {
  return [title](const Context&) { return std::string(title); };
}
// A layout knob may reduce `unexplained`; on a VM the host explains it first.
bool not_virtualized(const Context& c) { return !c.in.rec.host.virtualized; }

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all = {
      {"stop-process", stop_processes},
      {"move-irq", move_irqs},
      {"more-cpus", more_cpus},
      {"pin-cpu",
       [](const Context& c, Out& out) {
         if (c.in.rec.pinned) return;
         int cpu = std::max(0, quieter_cpu(c.in.rec, false));
         auto kc = on_cpus(c, {cpu});
         propose_knob(
             c, out, "pin-cpu", fmt::format("Pin the benchmark to one CPU (CPU {})", cpu),
             [&](const std::string& s) { return covers(c, "pin-cpu", s); }, &kc);
       }},
      {"quieter-cpu", quieter},
      knob("isolcpus",
           [](const Context& c) { return fmt::format("Isolate CPU {} from the scheduler (isolcpus)", c.target); }),
      knob(
          "kthread-cpus",
          [](const Context& c) { return fmt::format("Keep kernel threads on CPU {} (kthread_cpus)", c.housekeeping); }),
      knob("workqueue-cpumask",
           [](const Context& c) {
             return fmt::format("Run unbound kernel work queues on CPU {} only", c.housekeeping);
           }),
      knob("nohz-full",
           [](const Context& c) { return fmt::format("Stop the scheduler tick on CPU {} (nohz_full)", c.target); }),
      knob("rcu-nocbs",
           [](const Context& c) { return fmt::format("Offload RCU callbacks from CPU {} (rcu_nocbs)", c.target); }),
      knob("irqaffinity",
           [](const Context& c) {
             return fmt::format("Send every device IRQ to CPU {} from boot (irqaffinity)", c.housekeeping);
           }),
      knob("irqbalance", [](const Context& c) { return fmt::format("Keep irqbalance off CPU {}", c.target); }),
      knob("sched-fifo", text("Run the benchmark with a real-time priority (SCHED_FIFO)")),
      knob("nice", text("Give the benchmark the highest CFS weight (nice -20)")),
      knob("performance-governor", text("Use the performance governor")),
      knob("fixed-frequency", text("Fix the frequency: scaling_min_freq = scaling_max_freq")),
      knob("turbo-off", text("Turn turbo/boost off so the frequency cannot vary with temperature and load")),
      knob("smt-off", text("Turn SMT off, or keep the benchmark's sibling CPU idle")),
      knob("c-states", text("Disable deep C-states so the CPU wakes up fast")),
      knob("nmi-watchdog", text("Turn off the NMI watchdog")),
      knob("transparent-hugepages", text("Make transparent huge pages deterministic (never)")),
      {"cpu-quota",
       [](const Context& c, Out& out) {
         knobs::Context kc = c.knob;
         if (const auto& cg = c.in.rec.host.cgroup) {
           kc.cgroup = cg->quota_path.value_or("");
           kc.cgroup_version = cg->version;
         }
         propose_knob(
             c, out, "cpu-quota", "Remove the CPU quota that throttles the benchmark (or give it whole CPUs instead)",
             [&](const std::string& s) { return covers(c, "cpu-quota", s); }, &kc);
       }},
      {"dedicated-host",
       [](const Context& c, Out& out) {
         if (!c.in.rec.host.virtualized) return;
         propose_if(
             c, out, "dedicated-host", "Benchmark on a dedicated host or bare metal",
             [](const std::string& s) { return s == "steal" || s == "unexplained"; },
             {"# ask for dedicated vCPUs (CPU pinning on the host) or a bare-metal instance"},
             "Cost; a shared VM is what many production services run on.");
       }},
      {"fix-inputs",
       [](const Context& c, Out& out) {
         double share = c.in.split.instructions_share.value_or(0);
         if (share < kMinAddressedShare) return;
         out.push_back(
             {"fix-inputs",
              "Make the workload do the same work every run (fixed seeds and inputs)",
              {"# the retired-instruction count varies with the run time: seed RNGs with a constant, fix input data"},
              {"unexplained"},
              false,
              "One fixed input may not represent the real ones.",
              share});
       }},
      // Blocking by its cause: I/O is made repeatable, sleeps end on time, waits name their party.
      // A record without the parts (older versions) says only "blocking": I/O is then a guess.
      {"workload-io",
       [](const Context& c, Out& out) {
         propose_if(
             c, out, "workload-io", "Make the benchmark's I/O repeatable (inputs in tmpfs, warm page cache)",
             [](const std::string& s) {
               return s == sources::kBlocking || sources::blocking_part(sources::parse(s)) == sources::BlockingPart::io;
             },
             {"cp -r INPUTS /dev/shm/   # and point the benchmark at them",
              "sync; echo 3 > /proc/sys/vm/drop_caches   # or always start cold"},
             "The benchmark no longer measures the storage it will meet in production.");
       }},
      knob("timer-slack", text("End the benchmark's sleeps on time: timer slack 1 ns (or --fifo, which has none)")),
      {"workload-wait", waited_on},
      knob("aslr-off", text("Disable address-space randomisation for the benchmark (may remove layout noise)"),
           not_virtualized),
      knob("clean-env", text("Run with a fixed, minimal environment (stack alignment depends on its size)"),
           not_virtualized),
      {"more-warmup",
       [](const Context& c, Out& out) {
         if (!c.in.patterns.slow_first.found) return;
         out.push_back({"more-warmup",
                        "Add warm-up runs: the first measured run was slow",
                        {"noisewatch --warmup 3 -- " + c.knob.command},
                        {},
                        false,
                        "Cold-cache behaviour is no longer measured.",
                        0});
       }},
      {"more-runs",
       [](const Context& c, Out& out) {
         const auto& p = c.in.patterns;
         bool too_few = !c.in.attributable && p.runs < 5;
         if (!too_few && (size_t(p.runs_needed) <= p.runs || p.runs_needed > kMaxRunsToSuggest)) return;
         int runs = std::max(p.runs_needed, 10);
         out.push_back({"more-runs",
                        fmt::format("Measure more runs ({} for a mean within ±{:.0f} %)", runs, kTargetPrecision * 100),
                        {fmt::format("noisewatch --runs {} -- {}", runs, c.knob.command)},
                        {},
                        false,
                        "Takes longer.",
                        0});
       }},
  };
  return all;
}

// Boot parameters recommended together take one boot-loader edit and one reboot: the first of
// them (in rank order) carries the edit of all, the others point at it.
void merge_boot_edits(Out& recs, const knobs::Context& kc) {
  std::vector<Recommendation*> boot;
  std::vector<const knobs::Knob*> params;
  for (auto& r : recs)
    if (const knobs::Knob* k = knobs::find(r.id); k && k->scope == knobs::Scope::boot) {
      boot.push_back(&r);
      params.push_back(k);
    }
  if (boot.size() < 2) return;
  std::vector<std::string_view> ids;
  for (const auto* k : params) ids.push_back(k->id);
  boot.front()->commands = {
      fmt::format("# one edit and one reboot for every boot parameter recommended here: {}", fmt::join(ids, ", "))};
  for (auto& line : knobs::boot_edit(params, kc)) boot.front()->commands.push_back(std::move(line));
  for (size_t i = 1; i < boot.size(); ++i)
    boot[i]->commands = {
        fmt::format("# set by the boot-loader edit of {} above (one edit, one reboot)", boot.front()->id)};
}

}  // namespace

Tier tier_of(const Recommendation& r) {
  if (r.addresses.empty()) return Tier::measurement;
  bool only_unexplained =
      std::all_of(r.addresses.begin(), r.addresses.end(), [](const std::string& s) { return s == "unexplained"; });
  // fix-inputs follows the measured instruction count: it is not a guess.
  return only_unexplained && r.id != "fix-inputs" ? Tier::speculative : Tier::measured;
}

std::vector<std::string> recommendation_ids() {
  std::vector<std::string> ids;
  for (const auto& e : entries()) ids.emplace_back(e.id);
  return ids;
}

knobs::Context knob_context(const RunRecord& rec) {
  knobs::Context kc;
  kc.cpus = rec.cpus;
  for (int cpu = 0; cpu < rec.host.online_cpus; ++cpu) kc.online.push_back(cpu);
  kc.command = shell_command(rec.command);
  if (kc.command.empty()) kc.command = "./bench";
  return kc;
}

std::vector<Recommendation> recommend(const AdviceInput& in) {
  Context c{in, knob_context(in.rec), "", "", sources::benchmark_comm(in.rec.command)};
  c.target = in.rec.cpus.empty() ? std::string("<cpu>") : sys::format_cpulist(in.rec.cpus);
  auto housekeeping = knobs::split_cpus(in.rec.cpus, c.knob.online).housekeeping;
  c.housekeeping = housekeeping.empty() ? std::string("<housekeeping cpus>") : sys::format_cpulist(housekeeping);

  Out out;
  for (const auto& e : entries()) e.propose(c, out);
  // Without a reliable attribution, knobs chosen from the shares would be guesses: keep only
  // the advice about the measurement itself.
  if (!in.attributable) std::erase_if(out, [](const Recommendation& r) { return !r.addresses.empty(); });
  // Measured sources first, then knobs that may reduce `unexplained`, then advice about the
  // measurement itself (share 0); by share within each tier, table order on ties.
  std::stable_sort(out.begin(), out.end(), [&](const Recommendation& a, const Recommendation& b) {
    if (tier_of(a) != tier_of(b)) return tier_of(a) < tier_of(b);
    return a.share > b.share;
  });
  merge_boot_edits(out, c.knob);
  adapt_to_windows(in.rec, out);
  return out;
}

}  // namespace nw::report
