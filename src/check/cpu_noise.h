// SPDX-License-Identifier: Apache-2.0
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
// saw on each CPU after. It charges a CPU only inside that CPU's window, which the spinner itself
// opens after its first clock read and closes before its last: everything charged then lies
// between two of its reads. The eBPF implementation lives in noise_attribution.{h,cpp}.
class NoiseAttributor {
 public:
  virtual ~NoiseAttributor() = default;
  // Loads whatever it needs; charges nothing yet. `threshold_ns`: the spinners' gap threshold
  // (an event shorter than that cannot show in their gaps, so it is not charged).
  virtual void start(const std::map<int, pid_t>& spinner_tid_by_cpu, uint64_t threshold_ns) = 0;
  // Called by the spinner of `cpu`, on `cpu`, inside its measurement: cheap, no system call.
  virtual void open(int cpu) noexcept = 0;
  virtual void close(int cpu) noexcept = 0;
  // Per CPU, the OS events (IRQ, softirq, NMI, preemption by a thread) inside the windows.
  virtual std::map<int, std::vector<NoiseSource>> stop() = 0;
};

struct NoiseOptions {
  uint64_t threshold_ns = 1000;  // gaps shorter than this are the loop itself
  // Scheduling of the spinners. SCHED_OTHER (default) measures what a normal benchmark meets,
  // other threads included; SCHED_FIFO (like rtla osnoise -P f:N) leaves out ordinary threads,
  // which the load balancer spreads evenly anyway, and shows what is bound to each CPU.
  int policy = 0;  // SCHED_OTHER
  int priority = 0;
  NoiseAttributor* attributor = nullptr;  // optional: fills CpuNoise::top_sources
  size_t top_sources = 5;
};

// "other", "fifo:N" or "rr:N" -> policy and priority; throws nw::Error when malformed.
void parse_priority(const std::string& text, NoiseOptions& opts);

// Spins on every CPU of `cpus` at once for `seconds` seconds: the whole measurement takes that
// long however many CPUs it covers. Meanwhile the calling thread sleeps, on a CPU outside `cpus`
// when there is one. Throws nw::Error when a CPU cannot be used (offline, not allowed by our
// cpuset).
std::vector<CpuNoise> measure_cpu_noise(const std::vector<int>& cpus, double seconds, const NoiseOptions& opts = {});

// Fills measured.top_sources and attributed_ns from the OS events charged on its CPU. Gap time
// the OS events do not cover goes to "hardware/hypervisor" (SMIs, vCPU preemption by the host,
// ...). Sorted by time, at most `keep` OS sources plus that remainder.
void attribute_gaps(CpuNoise& measured, std::vector<NoiseSource> os_events, size_t keep);

// Housekeeping CPUs: the non-isolated online CPUs when some CPUs are isolated, otherwise the
// first online CPU (boot-time IRQs, timers and kthreads gather there).
std::vector<int> housekeeping_cpus(const std::vector<int>& online, const std::vector<int>& isolated);

struct CpuChoice {
  int cpu = -1;
  std::string reason;  // one line, for the user
};

// A CPU whose noise is at least this many times another measured CPU's is never recommended.
inline constexpr double kComparableNoiseRatio = 3.0;

// CPUs from quietest to noisiest: by noise_ppm, then max gap, then CPU number.
std::vector<CpuNoise> rank_cpus(std::vector<CpuNoise> measured);
// The quietest CPU, except that housekeeping breaks ties: among the CPUs comparable to the
// quietest (noise below kComparableNoiseRatio times its), the quietest that is not housekeeping.
// The reason says which rule decided. nullopt when nothing was measured.
std::optional<CpuChoice> recommend_cpu(const std::vector<CpuNoise>& measured, const std::vector<int>& housekeeping);

}  // namespace nw::check
