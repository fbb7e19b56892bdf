// SPDX-License-Identifier: Apache-2.0
// The eBPF noise probe: loads bpf/noise.bpf.c, attaches it, and reads what it aggregated.
// One instance per process; destroying it detaches and unloads every program.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/verifier_log.h"
#include "probes/window_markers.h"
#include "record/run_record.h"
#include "system/task_times.h"
#include "timeline/recording.h"

namespace nw::probes {

// One source on one CPU since the last collect().
struct NoiseEvent {
  std::string source;  // "preemption:stress", "irq:virtio1-req.0", "softirq:TIMER", ...
  int cpu = 0;
  uint64_t count = 0, time_ns = 0, max_ns = 0;
  nlohmann::json detail = nullptr;  // a SourceDetail (record/source_detail.h): pid, irq, from/to, ...
  uint32_t window = 0;              // --windows: 0 outside any window, k + 1 in window k
};

struct ProbeOptions {
  std::vector<int> watch_cpus;  // charge everything on these CPUs, tracked task or not
  // check's spinners: on each of these CPUs one thread measures the gaps the charges explain. Its
  // own time is never charged there, nor events shorter than watch_min_ns (they cannot show in
  // its gaps), and the CPU is charged only while open: closed until set_watched(cpu, true).
  std::map<int, pid_t> measurer_by_cpu{};
  uint64_t watch_min_ns = 0;
  bool windows = false;               // key every charge by the benchmark's marked window (--windows)
  std::string windows_exec{};         // with `windows`: the command name whose runs are windows (--windows-exec)
  bool windows_exec_as_root = false;  // with `windows`: the root's program's processes (--windows pyperf)
  CallWindowOptions call{};           // with `windows`: function windows' labels and threads (--windows gbench)
  TimelineOptions timeline{};         // timestamped events above a threshold (--timeline)
};

// Frequency seen by the probe on one CPU: an integral over time, so two snapshots give a
// time-weighted mean.
struct FrequencySnapshot {
  uint64_t changes = 0;
  double khz_ns = 0;  // integral of kHz over ns up to `at_ns`
  uint64_t at_ns = 0;
  bool known = false;
};

class NoiseProbe {
 public:
  // Loads and attaches; throws nw::Error with what to do when it cannot.
  explicit NoiseProbe(const ProbeOptions& opts = {});
  ~NoiseProbe();
  NoiseProbe(const NoiseProbe&) = delete;
  NoiseProbe& operator=(const NoiseProbe&) = delete;

  // Charge everything that takes time from this task, its future threads and children.
  void track(pid_t tid);
  // The same for the held child before its execve, which has run `runtime_ns` so far (its
  // /proc/PID/schedstat): its CPU time from here to its execve is noisewatch's, not counted.
  void track_held(pid_t pid, uint64_t runtime_ns);
  // Opens or closes a watched CPU's window: two stores, no system call. Call it from a thread
  // running on `cpu` (check's spinner, on its own CPU), so no event there is half inside.
  void set_watched(int cpu, bool on);
  // Forget every tracked task and reset per-CPU bookkeeping (between repetitions).
  void untrack_all();
  // Just before the held child's release: the benchmark has not begun, so a blocking span open
  // now (the child blocked waiting for its release after it was tracked) is not its blocking.
  void begin_run();
  // Per source and CPU since the last collect(reset=true).
  std::vector<NoiseEvent> collect(bool reset = true);
  // Events that could not be recorded (a full map, a program the kernel skipped) since the probe was loaded.
  uint64_t lost_events() const;
  // Context switches of tracked tasks as the probe saw them, and those it found it had not seen
  // (before_tracking is not the probe's: left empty). Cumulative since load: take differences.
  ProbeSwitches switches() const;
  // CPU time of the tracked tasks that ended (from the benchmark's execve), and interrupt time
  // taken while a tracked task ran. Cumulative since load: take differences.
  uint64_t cpu_ns() const;
  // When the held child's process ended (its last thread's last switch; CLOCK_MONOTONIC ns, as
  // sys::monotonic_ns), or 0 while it runs. Exact where noisewatch's own wake-up on the exit is late.
  uint64_t benchmark_exit_ns() const;
  uint64_t intr_running_ns() const;
  // Whether hypervisor steal comes from the probe ("steal" events: the scheduler's own account,
  // in ns, only while a tracked task ran or waited) rather than /proc/stat (10 ms ticks).
  bool measures_steal() const;
  // Every task on the machine with its run time, CPU and names, through the probe's task
  // iterator; nullopt where the kernel has none (then read /proc: system/task_times.h).
  std::optional<std::vector<sys::TaskTime>> task_times() const;
  // Warnings for the rare APIC vectors left untraced (probes/rare_vectors.h) that fired on `cpus`
  // (every CPU when empty) since the probe was set up.
  std::vector<std::string> untraced_vectors_fired(const std::vector<int>& cpus) const;
  // What the probe read of each CPU at set-up: an SMT sibling, a cpufreq driver.
  bool has_sibling(int cpu) const;
  bool has_cpufreq(int cpu) const;
  std::vector<nw::Unavailable> unavailable() const;
  // Each loaded program as the kernel's verifier judged it: its figures and the deepest call
  // chain's stack, against the verifier's limits (probes/verifier_log.h). The configuration field
  // is left for the caller.
  std::vector<ProgramVerification> verification() const;
  FrequencySnapshot frequency(int cpu) const;
  // The window markers (with ProbeOptions::windows; else null).
  WindowMarkers* markers();
  // Timeline events since the last drain, named like collect()'s (with ProbeOptions::timeline).
  std::vector<timeline::Event> drain_timeline();
  TimelineDrops timeline_drops() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nw::probes
