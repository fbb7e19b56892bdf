// SPDX-License-Identifier: Apache-2.0
// libpfm4, the event-name database: turns names such as "cycles", "task-clock" or
// "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS" into perf_event_attr, and lists what it knows.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <linux/perf_event.h>

namespace nw::probes {

// An event name turned into something perf_event_open accepts.
struct ResolvedEvent {
  std::string name;       // as the user gave it (the counter's key)
  std::string canonical;  // fully qualified, e.g. "perf::PERF_COUNT_SW_TASK_CLOCK:u=1:k=1..."
  std::string pmu;        // libpfm4 or sysfs PMU name, e.g. "perf", "amd64_fam19h_zen4", "msr"
  bool hardware = false;  // needs a hardware PMU (kernel software events do not)
  perf_event_attr attr{};
};

// Resolves `name` with pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT), counting user and
// kernel mode. nullopt when libpfm4 knows no such event; throws nw::Error when it knows the
// event but the modifiers are wrong (e.g. "cycles:bogus").
std::optional<ResolvedEvent> pfm_resolve(const std::string& name);

struct PfmEventInfo {
  std::string name;  // "PERF_COUNT_SW_TASK_CLOCK"
  std::string desc;
  std::vector<std::string> umasks;  // unit masks, if the event has any
  // The encoding of "pmu::name" (libpfm4 default umasks); nullopt when it needs more than that.
  std::optional<ResolvedEvent> encoding;
};

struct PfmPmuInfo {
  std::string name, desc;  // "amd64_fam19h_zen4", "AMD64 Fam19h Zen4"
  std::string kind;        // "core", "uncore", "os" or "unknown"
  std::vector<PfmEventInfo> events;
};

// Every PMU libpfm4 detected on this machine (from CPUID: a VM's guest kernel may still not
// expose it; whether an event can really be opened is a separate question, see probe_open).
std::vector<PfmPmuInfo> pfm_present_pmus();

// Name of the CPU's core PMU as libpfm4 detected it ("" if none), e.g. "amd64_fam19h_zen4".
std::string pfm_core_pmu();

}  // namespace nw::probes
