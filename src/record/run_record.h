// SPDX-License-Identifier: Apache-2.0
// The run record: everything one `noisewatch run` measured, in a format-neutral model.
// It round-trips through the `noisewatch.run/1` JSON of docs/contracts.md (field names are a contract).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/timeline_summary.h"
#include "system/host_info.h"  // HostInfo

namespace nw {

// One noise source seen during one repetition, e.g. "preemption:stress" or "irq:local_timer".
struct NoiseEntry {
  std::string source;
  uint64_t count = 0;
  uint64_t time_ns = 0;  // time taken from the benchmark (0 for count-only sources)
  uint64_t max_ns = 0;   // longest single event
  // Optional detail, e.g. {"pid": 1234} for preemption or {"from": 1, "to": 0} for migration.
  nlohmann::json detail = nullptr;
};

// One noise entry as the record writes it ({"source", "count", "time_ns", "max_ns", "detail"}).
nlohmann::json noise_entry_json(const NoiseEntry& e);

// A hardware or software counter read for one repetition (libpfm4 / perf_event_open).
struct CounterValue {
  double value = 0;  // scaled value (raw * time_enabled / time_running)
  uint64_t raw = 0;
  double scaling = 1.0;  // time_running / time_enabled; < 1 means the counter was multiplexed
};

// Context switches split the kernel's way (getrusage's ru_nvcsw / ru_nivcsw): voluntary when the
// task blocked, involuntary when it was still runnable.
struct SwitchCounts {
  uint64_t voluntary = 0, involuntary = 0;
};

// The benchmark's switches as the eBPF probe counted them, next to the switches the child made
// before it was tracked (from /proc). Their sums must equal getrusage()'s: the check that no
// switch escaped the probe.
struct ProbeSwitches {
  SwitchCounts seen, before_tracking;
  // Switches the probe did not see where they touched the benchmark (a kernel that hides some
  // tasks from tracing, as these VMs hide their init agent's threads): the run's accounting around
  // them is reconstructed, not measured. Absent (0) in records of older versions.
  uint64_t unseen = 0;
};

// A process that ran on another CPU than the benchmark's during one repetition (runner/neighbours.h):
// it shares the caches, the memory bandwidth and, on a VM, the host's CPUs with the benchmark.
struct Neighbour {
  int pid = 0;
  std::string comm;
  uint64_t cpu_ns = 0;  // its CPU time over the repetition, on CPUs other than the benchmark's
  int cpu = -1;         // the CPU its busiest thread last ran on
};

struct RunSample {
  int index = 0;
  bool warmup = false;
  uint64_t wall_ns = 0;
  // getrusage() of the reaped child: includes noisewatch's own pre-exec code in the forked child
  // and the exec itself (tearing down noisewatch's address space). Kept for compatibility and for
  // the user/system split; the benchmark's own CPU time is cpu_ns.
  uint64_t user_ns = 0, sys_ns = 0;
  // The benchmark's CPU time, measured by the probe from its execve to each task's end (the
  // scheduler's runtime of every tracked task that ended during the run). On kernels without
  // IRQ_TIME_ACCOUNTING the scheduler's runtime includes interrupt time taken while the task ran:
  // cpu_irq_ns is that part, so cpu_ns - cpu_irq_ns is the benchmark's own. Absent in records of
  // older versions.
  std::optional<uint64_t> cpu_ns, cpu_irq_ns;
  int exit_status = 0;        // as the shell would report it (128+N for signal N)
  std::optional<int> signal;  // terminating signal, if any
  uint64_t migrations = 0, voluntary_switches = 0, involuntary_switches = 0;
  uint64_t minor_faults = 0, major_faults = 0;
  uint64_t steal_ns = 0;
  // Wall time during which none of the benchmark's tasks ran or was runnable (<= wall_ns).
  uint64_t blocking_ns = 0;
  // The cgroup's own count of its throttled time (cpu.stat of host.cgroup.quota_path) over the
  // repetition: the kernel's cross-check of the probe's throttle: charge. Absent without a quota.
  std::optional<uint64_t> cgroup_throttled_ns;
  std::vector<NoiseEntry> noise;
  std::map<std::string, CounterValue> counters;
  std::optional<double> mean_khz;  // time-weighted frequency of the target CPUs, when known
  std::optional<ProbeSwitches> probe_switches;
  // The busiest processes on the other CPUs during the repetition, busiest first; absent where
  // not measured (window entries, records of older versions).
  std::optional<std::vector<Neighbour>> neighbours;
  bool interrupted = false;  // cut short by SIGINT/SIGTERM: excluded from statistics
  // --windows: this entry is window `window` (its index in its process run) of process run
  // `process_run`. The whole process's figures (getrusage, steal, counters, CPU time, switch
  // counts, exit status, frequency) are not per window: a window entry leaves them out.
  std::optional<int> window, process_run;
  nlohmann::json label = nullptr;  // the window's label (integer, or text from the marker fd)
  // --windows gbench: the window's gaps, where the library's timer was stopped (the benchmark's
  // PauseTiming() to ResumeTiming()), left out of wall_ns and of its noise; and how many.
  // Absent in other windows and in records of versions before them. `paused_in_wall`: the window
  // of a ->Threads(N) benchmark, whose gaps (its opener's) are measured but in wall_ns and its noise.
  std::optional<uint64_t> paused_ns, pauses;
  bool paused_in_wall = false;
  // --windows pyperf: the worker's run as pyperf timed it inside the worker (its metadata
  // `duration`, from its JSON output). The window also holds the interpreter's start-up and
  // pyperf's import, which that clock does not see. Absent where not read, and in older records.
  std::optional<uint64_t> harness_duration_ns;
  // Live compare (`compare -- A ::: B`): the pair this run belongs to (its `label` says the side,
  // "A" or "B"); absent elsewhere.
  std::optional<int> pair;

  // The run's sources as the analyses read them: its noise entries, with `blocking` replaced by
  // its parts (blocking:sleep, blocking:io:<irq>, ... from its detail.parts) where the record has
  // them, plus a `steal` entry from steal_ns when there is none (records written before the
  // runner made steal an entry).
  std::vector<NoiseEntry> all_noise() const;
  // The time noise stole from this run (sources/vocabulary.h, is_stolen): everything but the
  // workload's own blocking, contention and page faults. `bench_comm` (sources::benchmark_comm)
  // recognises the benchmark's own tasks in older records, which called them preemption.
  uint64_t stolen_ns(std::string_view bench_comm = {}) const;
  // The benchmark's own CPU time: cpu_ns less the interrupt time in it where the probe measured
  // it, else getrusage()'s user + sys (older records).
  uint64_t own_cpu_ns() const;
  // The run's account (issue #24): the benchmark's own CPU time (less measured fault time, a
  // source of its own) + its blocking + everything the machine took from it (stolen_ns, less the
  // modelled frequency loss, which overlaps the CPU time). On one CPU it covers the wall time but
  // for what no probe saw; nullopt where the probe measured no CPU time (window entries, older
  // records).
  std::optional<uint64_t> accounted_ns() const;
  // wall_ns - accounted_ns when positive (one CPU: time nothing measured accounts for).
  std::optional<uint64_t> unaccounted_ns() const;
  // Whether either of those was measured (a --windows entry has neither: only its wall time).
  bool has_cpu_time() const { return cpu_ns.has_value() || user_ns + sys_ns > 0; }
  const NoiseEntry* find(const std::string& source) const;
};

struct Summary {
  int runs = 0;
  double mean_ns = 0, median_ns = 0, stddev_ns = 0, cv = 0, min_ns = 0, max_ns = 0;
};

struct Attribution {
  std::string source;
  double share = 0;                             // fraction of Var(wall) explained by this source
  double mean_time_ns = 0;                      // mean stolen time per measured run
  std::optional<double> share_low, share_high;  // bootstrap interval
  double mean_count = 0, max_ns = 0;
  nlohmann::json extra = nullptr;  // engine-specific evidence
};

struct Recommendation {
  std::string id, title;
  std::vector<std::string> commands;
  std::vector<std::string> addresses;  // sources this knob removes
  bool reboot = false;
  std::string tradeoff;
  double share = 0;  // share of variance addressed (ranking key)
};

struct Unavailable {
  std::string probe, reason;
};

// --windows-at: the function whose outermost calls are windows.
struct WindowsAt {
  std::string spec;      // as given: SYMBOL[@LIB]
  std::string binary;    // the file defining it
  std::string symbol;    // its symbol-table name
  std::string function;  // demangled
};

// --windows NAME: the harness whose repetitions are windows ("gbench", "hyperfine", "pyperf"), the
// file defining its functions (gbench) and the JSON output it read (gbench, pyperf).
struct WindowsHarness {
  std::string name;
  std::optional<std::string> binary, output;
};

// Live compare: the commands the samples labelled "A" and "B" ran (`command` is A's), and the
// settings its decision used (absent ones: compare's own defaults).
struct CompareSides {
  std::vector<std::string> a, b;
  size_t max_pairs = 0, min_pairs = 0;
  std::optional<double> threshold_percent, alpha;
};

// --runs auto: how precisely the median was known when the runs stopped.
struct RunsAuto {
  double precision_percent = 0;  // asked (--precision)
  int max_runs = 0;              // --max-runs
  double confidence_percent = 0;
  size_t measured_runs = 0;                // the JSON's "runs": the measured runs when they stopped
  bool reached = false;                    // whether the median was known within precision_percent
  std::optional<double> achieved_percent;  // how closely it was; none (null) while unbounded
};

struct RunRecord {
  std::string schema = "noisewatch.run/1";
  std::string version;
  std::vector<std::string> command;
  std::vector<int> cpus;
  bool pinned = true;
  std::string cpu_reason;  // why this CPU was chosen
  HostInfo host;
  // What the statistics read, warm-ups included (the JSON's "runs"): one sample per process run,
  // or under --windows one per window (the process runs are then process_runs). measured() leaves
  // out the warm-ups and the interrupted.
  std::vector<RunSample> samples;
  Summary summary;
  std::vector<Attribution> attribution;
  std::vector<Recommendation> recommendations;
  std::vector<Unavailable> unavailable;
  std::vector<std::string> warnings;
  uint64_t lost_events = 0;
  bool interrupted = false;
  nlohmann::json report = nullptr;  // extra report-engine output (free-form, optional)
  // How the benchmark process was set up (--no-aslr, --fifo, --nice, --clean-env, --env) and the
  // machine tuning in force (--tune); null when none of them was asked for.
  nlohmann::json setup = nullptr;
  // --windows: `samples` holds windows; these are the process runs they came from, each with its
  // whole-process figures and all its noise (inside windows and between them).
  std::vector<RunSample> process_runs;
  std::optional<int> warmup_windows;        // set with --windows
  std::optional<std::string> windows_exec;  // --windows-exec COMM: the program whose runs are windows
  std::optional<WindowsAt> windows_at;
  std::optional<WindowsHarness> windows_harness;
  std::optional<CompareSides> compare_sides;
  std::optional<RunsAuto> runs_auto;
  std::optional<TimelineSummary> timeline;

  std::vector<const RunSample*> measured() const;  // non-warmup, non-interrupted runs
  void add_unavailable(std::string probe, std::string reason);
};

// Fills `summary` from the measured runs.
Summary summarize(const RunRecord& rec);

// The noisewatch.run/1 document (run_record_json.cpp).
nlohmann::json to_json(const RunRecord& rec);
// Throws std::runtime_error with a one-line reason when the JSON is not a noisewatch run record.
RunRecord run_record_from_json(const nlohmann::json& j);
// Reads and parses a file; throws std::runtime_error naming the file and what is wrong.
RunRecord load_run_record(const std::string& path);

}  // namespace nw
