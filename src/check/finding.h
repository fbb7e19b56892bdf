// SPDX-License-Identifier: Apache-2.0
// The result model of `noisewatch check`: findings about the configuration, measured noise per
// CPU and the recommended CPU. Renderers (text, JSON, Prometheus) are pure functions of it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nw::check {

enum class Status { ok, info, warn, fail, unknown };

std::string_view to_string(Status s);

struct Finding {
  std::string id;  // stable id (docs/contracts.md): "cpu-governor", "smt", ...
  Status status = Status::unknown;
  std::vector<int> cpus;            // the CPUs concerned (target CPUs, or those with the problem)
  std::string summary;              // one line, with the values read
  std::vector<std::string> fix;     // shell commands that fix it
  nlohmann::json detail = nullptr;  // extra evidence (e.g. the IRQs that may land on a target)
};

struct NoiseSource {
  std::string source;  // "irq:local_timer", "preemption:kworker/1:2", "hardware/hypervisor"
  uint64_t count = 0, time_ns = 0, max_ns = 0;
};

// Measured noise of one CPU: a spinning thread's clock-read gaps above a threshold.
struct CpuNoise {
  int cpu = -1;
  double noise_ppm = 0;  // gap time per million ns of measurement
  uint64_t max_gap_ns = 0;
  uint64_t gaps = 0;                     // gaps above the threshold
  uint64_t gap_ns = 0;                   // their total time (noise_ppm = gap_ns per million measured_ns)
  uint64_t measured_ns = 0;              // wall time the spinner measured
  std::vector<NoiseSource> top_sources;  // when the eBPF probe could attribute the gaps
  // OS events charged on the CPU inside the measurement, every source (top_sources keeps a
  // few): never more than gap_ns, since each lies inside a gap (see NoiseAttributor).
  std::optional<uint64_t> attributed_ns;
};

struct CheckReport {
  std::vector<int> target_cpus;
  std::vector<int> unavailable_cpus;  // online, but not available to this process (cpuset/affinity)
  std::string sysroot;                // "" for the live machine
  std::vector<Finding> findings;
  std::vector<CpuNoise> cpus;  // empty when not measured (sysroot, --duration 0)
  std::optional<int> recommended_cpu;
  std::string recommendation_reason;
  std::vector<std::string> notes;  // e.g. why attribution is unavailable

  // 2 when any finding failed, 1 when any warned, else 0.
  int exit_status() const;
  const Finding* find(std::string_view id) const;
};

}  // namespace nw::check
