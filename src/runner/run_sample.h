// SPDX-License-Identifier: Apache-2.0
// One repetition's RunSample from the probe: what its counters read before and after the
// repetition, the child's own account (wall time, rusage, exit) and the events charged meanwhile.
// The window entries of --windows take their noise the same way (set_noise, runner/noise_merge.h).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "probes/noise_probe.h"
#include "record/run_record.h"
#include "runner/repetition.h"

namespace nw::runner {

// The probe's cumulative figures at one instant, for the benchmark's CPUs.
struct ProbeReading {
  ProbeSwitches switches;
  uint64_t cpu_ns = 0, intr_running_ns = 0;
  uint64_t proc_steal_ns = 0;                        // /proc/stat's, read only where the probe does not measure steal
  std::vector<probes::FrequencySnapshot> frequency;  // one per CPU, in `cpus` order
};
ProbeReading read_probe(const probes::NoiseProbe& probe, const std::vector<int>& cpus);

// What the session knows of one repetition besides the probe's readings.
struct RepetitionFacts {
  int index = 0;
  bool warmup = false;
  const ChildResult& child;
  std::optional<uint64_t> cgroup_throttled_ns;
  SwitchCounts before_tracking;  // the child's own switch counts when the probe began tracking it
  std::vector<Neighbour> neighbours;
  std::map<std::string, CounterValue> counters;
};

// The repetition's sample: the deltas between the readings, its noise from `events`, page faults
// (timed by the probe, else getrusage's count), steal (the probe's, else /proc/stat's) and the
// mean frequency (cpufreq events, else the counters' APERF/MPERF).
// `probe_measures_steal`: NoiseProbe::measures_steal() (else steal is /proc/stat's delta).
RunSample sample_from(bool probe_measures_steal, const ProbeReading& before, const ProbeReading& after,
                      RepetitionFacts facts, const std::vector<probes::NoiseEvent>& events);

}  // namespace nw::runner
