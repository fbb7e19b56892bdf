// SPDX-License-Identifier: Apache-2.0
// Hardware and software counters of the benchmark process, per repetition: libpfm4 names,
// perf_event_open with inherit (all threads and children), enabled at execve, read after the
// child was reaped, scaled when multiplexed. Events this machine cannot count are reported in
// unavailable() with the reason, never as an error: only an unknown name is an error.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "probes/counter_fd.h"
#include "probes/pfm_events.h"
#include "record/run_record.h"

namespace nw::probes {

// Pseudo-event: the benchmark's effective (busy) frequency in GHz from the msr PMU's
// aperf/mperf/tsc (turbostat's method). Its CounterValue holds GHz in `value`, the same
// frequency in kHz in `raw` (comparable with RunSample::mean_khz), and the worst scaling of
// the three MSR counters; the raw "msr/aperf/", "msr/mperf/" and "msr/tsc/" counts are
// reported next to it.
inline constexpr const char* kEffectiveGhz = "effective-ghz";

class Counters {
 public:
  // Resolves every name once: libpfm4 names (pfm_get_os_event_encoding, PFM_OS_PERF_EVENT_EXT),
  // the kernel's sysfs PMU events as "pmu/event/" (e.g. "msr/tsc/"), and "effective-ghz".
  // An unknown name throws nw::Error("unknown event 'foo' (see `noisewatch events`)"); so does
  // perf_event_open being forbidden (with what to do). An empty list means default_events(),
  // less the software ones when there is no hardware PMU (see counters.cpp for why).
  explicit Counters(std::vector<std::string> events = {});
  ~Counters();
  Counters(const Counters&) = delete;
  Counters& operator=(const Counters&) = delete;

  // Opens the events on `pid`, a child held before execve: inherit=1, disabled=1,
  // enable_on_exec=1, so counting starts at execve and covers all its threads and children.
  // Counters still open from a previous attach() are closed first. Throws nw::Error.
  void attach(pid_t pid);

  // After the child was reaped: every counter (scaled, see scale_count) keyed by the name as
  // given or defaulted; closes the descriptors. Empty when nothing is attached.
  std::map<std::string, nw::CounterValue> read_and_close();

  // What could not be measured and why, one entry per requested event, e.g.
  // {"cycles", "no hardware PMU exposed: virtual machine"}.
  std::vector<nw::Unavailable> unavailable() const { return unavailable_; }
  bool has_hardware_pmu() const { return hardware_pmu_; }
  // The requested names that will be measured, in order.
  std::vector<std::string> measured() const;

  // cycles, instructions, ref-cycles (not on AMD: its reference clock is MPERF, used by
  // effective-ghz), cache-misses (the kernel's "usually last-level cache misses"),
  // branch-misses, task-clock, context-switches, cpu-migrations, page-faults, effective-ghz.
  static std::vector<std::string> default_events(const std::string& core_pmu);
  // task-clock, context-switches, cpu-migrations, page-faults.
  static std::vector<std::string> software_default_events();

 private:
  struct Slot {
    ResolvedEvent event;
    int group = -1;       // index of the group leader's slot, or -1 when standalone
    bool hidden = false;  // opened for effective-ghz, not requested by name
    CounterFd fd;
  };
  void add(ResolvedEvent ev, bool hidden);
  void add_effective_ghz();
  void open_slot(size_t i, pid_t pid);

  std::vector<Slot> slots_;
  std::vector<std::string> requested_;
  std::vector<nw::Unavailable> unavailable_;
  bool hardware_pmu_ = false;
  std::string no_pmu_reason_;
  bool effective_ghz_ = false;
};

// Group plan: events on the same PMU share a group, so that ratios such as IPC come from the
// same time slices even when multiplexed (software events form their own group; tracepoints
// and breakpoints stand alone). Returns, for each event, the index of its group leader (its
// own index for a leader) or -1.
std::vector<int> plan_groups(const std::vector<ResolvedEvent>& events);

}  // namespace nw::probes
