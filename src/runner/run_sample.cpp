// SPDX-License-Identifier: Apache-2.0
#include "runner/run_sample.h"

#include <algorithm>

#include "probes/counters.h"
#include "record/source_detail.h"
#include "runner/noise_merge.h"
#include "runner/steal.h"
#include "sources/vocabulary.h"

namespace nw::runner {

namespace {

uint64_t to_ns(const timeval& tv) { return uint64_t(tv.tv_sec) * 1'000'000'000ull + uint64_t(tv.tv_usec) * 1000ull; }

// Faults: measured CPU time when the probe traces them (count: faults handled after the execve),
// else getrusage's count alone (its cost is then estimated by the report).
void add_faults(RunSample& s) {
  nlohmann::json detail = SourceDetail{.minor = s.minor_faults, .major = s.major_faults}.to_json();
  if (auto it =
          std::find_if(s.noise.begin(), s.noise.end(), [](const NoiseEntry& e) { return e.source == sources::kFault; });
      it != s.noise.end())
    it->detail = detail;
  else if (s.minor_faults + s.major_faults)
    s.noise.push_back({std::string(sources::kFault), s.minor_faults + s.major_faults, 0, 0, detail});
}

// Steal: the probe's (ns, only while the benchmark ran or waited) where the kernel accounts it,
// else /proc/stat's for the whole CPUs (10 ms ticks: a run can gain or lose one).
void add_steal(RunSample& s, bool probe_measures, const ProbeReading& before, const ProbeReading& after) {
  if (probe_measures) {
    if (const NoiseEntry* e = s.find(std::string(sources::kSteal))) s.steal_ns = e->time_ns;
    return;
  }
  s.steal_ns = after.proc_steal_ns - before.proc_steal_ns;
  if (s.steal_ns)
    s.noise.push_back(
        {std::string(sources::kSteal), 1, s.steal_ns, s.steal_ns, SourceDetail{.origin = "/proc/stat"}.to_json()});
}

void add_frequency(RunSample& s, const ProbeReading& before, const ProbeReading& after) {
  double khz_ns = 0, ns = 0;
  for (size_t k = 0; k < before.frequency.size() && k < after.frequency.size(); ++k) {
    const auto &f0 = before.frequency[k], &f1 = after.frequency[k];
    if (f0.known && f1.known && f1.at_ns > f0.at_ns) {
      khz_ns += f1.khz_ns - f0.khz_ns;
      ns += double(f1.at_ns - f0.at_ns);
    }
  }
  if (ns > 0) s.mean_khz = khz_ns / ns;
  // Without cpufreq events, APERF/MPERF (when the PMU has them) still say how fast it ran.
  if (auto it = s.counters.find(probes::kEffectiveGhz); !s.mean_khz && it != s.counters.end() && it->second.raw)
    s.mean_khz = double(it->second.raw);
}

}  // namespace

ProbeReading read_probe(const probes::NoiseProbe& probe, const std::vector<int>& cpus) {
  ProbeReading r;
  r.switches = probe.switches();
  r.cpu_ns = probe.cpu_ns();
  r.intr_running_ns = probe.intr_running_ns();
  if (!probe.measures_steal()) r.proc_steal_ns = read_steal_ns(cpus);
  for (int c : cpus) r.frequency.push_back(probe.frequency(c));
  return r;
}

RunSample sample_from(bool probe_measures_steal, const ProbeReading& before, const ProbeReading& after,
                      RepetitionFacts facts, const std::vector<probes::NoiseEvent>& events) {
  const ChildResult& r = facts.child;
  RunSample s;
  s.counters = std::move(facts.counters);
  s.index = facts.index;
  s.warmup = facts.warmup;
  s.wall_ns = r.wall_ns;
  s.cpu_ns = after.cpu_ns - before.cpu_ns;
  s.cpu_irq_ns = after.intr_running_ns - before.intr_running_ns;
  s.cgroup_throttled_ns = facts.cgroup_throttled_ns;
  s.user_ns = to_ns(r.usage.ru_utime);
  s.sys_ns = to_ns(r.usage.ru_stime);
  s.exit_status = r.exit_status;
  s.signal = r.signal;
  s.interrupted = r.forwarded_signal != 0;
  s.voluntary_switches = uint64_t(r.usage.ru_nvcsw);
  s.involuntary_switches = uint64_t(r.usage.ru_nivcsw);
  s.neighbours = std::move(facts.neighbours);
  s.probe_switches = ProbeSwitches{{after.switches.seen.voluntary - before.switches.seen.voluntary,
                                    after.switches.seen.involuntary - before.switches.seen.involuntary},
                                   facts.before_tracking,
                                   after.switches.unseen - before.switches.unseen};
  s.minor_faults = uint64_t(r.usage.ru_minflt);
  s.major_faults = uint64_t(r.usage.ru_majflt);
  set_noise(s, events);
  add_faults(s);
  add_steal(s, probe_measures_steal, before, after);
  add_frequency(s, before, after);
  return s;
}

}  // namespace nw::runner
