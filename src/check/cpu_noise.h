// Measured noise per CPU, osnoise's way: a thread pinned on each CPU spins reading the clock;
// every gap between two reads above a threshold is time something else took from it.
// `noisewatch check` shows it, and `run --cpu auto` uses the ranking to pick a CPU.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/finding.h"

namespace nw::check {

// Explains gaps: told which thread spins on which CPU before the measurement, asked for what it
// saw on each CPU after. The eBPF implementation lives in noise_attribution.{h,cpp}.
class NoiseAttributor {
 public:
  virtual ~NoiseAttributor() = default;
  virtual void start(const std::map<int, pid_t>& spinner_tid_by_cpu) = 0;
  // Per CPU, the OS events (IRQ, softirq, NMI, preemption by a thread) during the measurement.
  virtual std::map<int, std::vector<NoiseSource>> stop() = 0;
};

struct NoiseOptions {
  uint64_t threshold_ns = 1000;           // gaps shorter than this are the loop itself
  // Scheduling of the spinners. SCHED_OTHER (default) measures what a normal benchmark meets,
  // other threads included; SCHED_FIFO (like rtla osnoise -P f:N) leaves out ordinary threads,
  // which the load balancer spreads evenly anyway, and shows what is bound to each CPU.
  int policy = 0;                         // SCHED_OTHER
  int priority = 0;
  NoiseAttributor* attributor = nullptr;  // optional: fills CpuNoise::top_sources
  size_t top_sources = 5;
};

// "other", "fifo:N" or "rr:N" -> policy and priority; throws nw::Error when malformed.
void parse_priority(const std::string& text, NoiseOptions& opts);

// Spins on every CPU of `cpus` at once for `seconds_total` seconds. Throws nw::Error when a CPU
// cannot be used (offline, not allowed by our cpuset).
std::vector<CpuNoise> measure_cpu_noise(const std::vector<int>& cpus, double seconds_total,
                                        const NoiseOptions& opts = {});

// Gap time the OS events do not cover goes to "hardware/hypervisor" (SMIs, vCPU preemption by
// the host, ...). Sorted by time, at most `keep` entries plus that remainder.
std::vector<NoiseSource> attribute_gaps(const CpuNoise& measured, std::vector<NoiseSource> os_events, size_t keep);

// Housekeeping CPUs: the non-isolated online CPUs when some CPUs are isolated, otherwise the
// first online CPU (boot-time IRQs, timers and kthreads gather there).
std::vector<int> housekeeping_cpus(const std::vector<int>& online, const std::vector<int>& isolated);

struct CpuChoice {
  int cpu = -1;
  std::string reason;  // one line, for the user
};

// CPUs from quietest to noisiest: by noise_ppm, then max gap, then CPU number.
std::vector<CpuNoise> rank_cpus(std::vector<CpuNoise> measured);
// The quietest CPU that is not housekeeping (any CPU when all are housekeeping); nullopt when
// nothing was measured.
std::optional<CpuChoice> recommend_cpu(const std::vector<CpuNoise>& measured, const std::vector<int>& housekeeping);

}  // namespace nw::check
