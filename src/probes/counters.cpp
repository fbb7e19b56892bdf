// SPDX-License-Identifier: Apache-2.0
#include "probes/counters.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "probes/counter_analysis.h"
#include "probes/counter_host.h"
#include "probes/counter_sysfs_pmu.h"

namespace nw::probes {

namespace {

const char* kMsrEvents[] = {"aperf", "mperf", "tsc"};

std::string unknown_event(const std::string& name) {
  return fmt::format("unknown event '{}' (see `noisewatch events`)", name);
}

// Hardware, hardware-cache and raw events all go to the CPU's core PMU. Software events
// never multiplex; they are grouped all the same, so they start and stop with one leader.
int pmu_group_key(const ResolvedEvent& ev) {
  switch (ev.attr.type) {
    case PERF_TYPE_TRACEPOINT:
    case PERF_TYPE_BREAKPOINT:
      return -1;
    case PERF_TYPE_HARDWARE:
    case PERF_TYPE_HW_CACHE:
      return PERF_TYPE_RAW;
    default:
      return int(ev.attr.type);
  }
}

}  // namespace

std::vector<int> plan_groups(const std::vector<ResolvedEvent>& events) {
  std::map<int, int> leader_of_key;
  std::vector<int> out;
  for (size_t i = 0; i < events.size(); ++i) {
    int key = pmu_group_key(events[i]);
    if (key < 0) {
      out.push_back(-1);
      continue;
    }
    auto [it, inserted] = leader_of_key.emplace(key, int(i));
    out.push_back(it->second);
  }
  return out;
}

std::vector<std::string> Counters::software_default_events() {
  return {"task-clock", "context-switches", "cpu-migrations", "page-faults"};
}

std::vector<std::string> Counters::default_events(const std::string& core_pmu) {
  std::vector<std::string> ev{"cycles", "instructions"};
  if (!core_pmu.starts_with("amd")) ev.push_back("ref-cycles");
  for (const char* e : {"cache-misses", "branch-misses"}) ev.push_back(e);
  for (auto& e : software_default_events()) ev.push_back(std::move(e));
  ev.push_back(kEffectiveGhz);
  return ev;
}

Counters::Counters(std::vector<std::string> events) {
  auto pmu = probe_hardware_pmu();
  hardware_pmu_ = pmu.hardware;
  no_pmu_reason_ = pmu.reason;
  const bool defaulted = events.empty();
  // Without a hardware PMU libpfm4 is not asked about the default set: it could only confirm that
  // cycles cannot be counted, and its initialisation scans every tracepoint in tracefs (~7 ms,
  // 2,600 files, of a ~80 ms start-up).
  if (defaulted) events = default_events(hardware_pmu_ ? pfm_core_pmu() : "");
  if (defaulted && !hardware_pmu_) {
    // Without a hardware PMU the default set comes down to software counters, and the record
    // already has each of them for every run (CPU time and switches from getrusage, migrations
    // from the probe, faults from getrusage). A per-task perf event, on the other hand, puts
    // perf's context-switch hook on every switch of the benchmark: `perf stat -e task-clock`
    // alone slows a context-switch ping-pong by 13 % on a KVM guest. So they are left to -e.
    auto software = software_default_events();
    unavailable_.push_back({fmt::format("{}", fmt::join(software, ",")),
                            "not counted by default without a hardware PMU: the record has them from getrusage and the "
                            "probe, and a per-task perf event costs every context switch (ask with -e)"});
    // The hardware defaults are requested and unavailable; only effective-ghz (MSRs) is left to try.
    for (const auto& e : events) {
      if (e == kEffectiveGhz || std::find(software.begin(), software.end(), e) != software.end()) continue;
      requested_.push_back(e);
      unavailable_.push_back({e, no_pmu_reason_});
    }
    events = {kEffectiveGhz};
  }

  std::set<std::string> seen;
  for (const auto& name : events) {
    if (name.empty()) throw Error("empty event name in the event list (see `noisewatch events`)");
    if (!seen.insert(name).second) throw Error(fmt::format("event '{}' is listed twice", name));
  }
  // Every name is resolved before any is opened: a typo is reported as such, not hidden
  // behind a permission error on an earlier event.
  std::vector<std::optional<ResolvedEvent>> resolved_names;
  for (const auto& name : events) {
    std::optional<ResolvedEvent> ev;
    if (name != kEffectiveGhz) {
      if (auto parts = split_sysfs_name(name)) ev = sysfs_resolve(name, parts->first, parts->second);
      else ev = pfm_resolve(name);
      if (!ev) throw Error(unknown_event(name));
      ev->name = name;
    }
    resolved_names.push_back(std::move(ev));
  }
  for (size_t i = 0; i < events.size(); ++i) {
    requested_.push_back(events[i]);
    if (resolved_names[i]) add(std::move(*resolved_names[i]), false);
    else add_effective_ghz();
  }

  std::vector<ResolvedEvent> resolved;
  for (const auto& s : slots_) resolved.push_back(s.event);
  auto groups = plan_groups(resolved);
  for (size_t i = 0; i < slots_.size(); ++i) slots_[i].group = groups[i];
}

Counters::~Counters() = default;

// Keeps the event when it can be opened here; otherwise records why not.
void Counters::add(ResolvedEvent ev, bool hidden) {
  int err = probe_open(ev.attr);
  if (err == EACCES || err == EPERM) throw Error(fmt::format("cannot count '{}': {}", ev.name, permission_hint()));
  if (err != 0) {
    std::string reason = ev.hardware && !hardware_pmu_
                             ? no_pmu_reason_
                             : fmt::format("cannot be counted here (perf_event_open: {})", std::strerror(err));
    unavailable_.push_back({ev.name, reason});
    return;
  }
  slots_.push_back({std::move(ev), -1, hidden, {}});
}

void Counters::add_effective_ghz() {
  if (auto why = aperf_mperf_missing()) {
    unavailable_.push_back({kEffectiveGhz, *why});
    return;
  }
  std::vector<ResolvedEvent> msr;
  for (const char* e : kMsrEvents) {
    auto ev = sysfs_resolve(fmt::format("msr/{}/", e), "msr", e);
    int err = ev ? probe_open(ev->attr) : ENOENT;
    if (err != 0) {
      unavailable_.push_back(
          {kEffectiveGhz, fmt::format("msr/{}/ cannot be counted here ({})", e, std::strerror(err))});
      return;
    }
    msr.push_back(std::move(*ev));
  }
  for (auto& ev : msr) add(std::move(ev), true);
  effective_ghz_ = true;
}

std::vector<std::string> Counters::measured() const {
  std::vector<std::string> out;
  for (const auto& name : requested_) {
    bool missing = std::any_of(unavailable_.begin(), unavailable_.end(),
                               [&](const nw::Unavailable& u) { return u.probe == name; });
    if (!missing) out.push_back(name);
  }
  return out;
}

void Counters::open_slot(size_t i, pid_t pid) {
  Slot& s = slots_[i];
  perf_event_attr attr = s.event.attr;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.inherit = 1;
  bool member = s.group >= 0 && size_t(s.group) != i && slots_[size_t(s.group)].fd.valid();
  // A group member follows its leader's enable state; the leader (or a standalone event)
  // starts disabled and is switched on by the kernel at execve.
  attr.disabled = member ? 0 : 1;
  attr.enable_on_exec = member ? 0 : 1;
  if (member) {
    s.fd = CounterFd::open(attr, pid, slots_[size_t(s.group)].fd.get());
    if (s.fd.valid()) return;
    // The PMU cannot schedule the whole group (too few counters): count this one on its own,
    // multiplexed and scaled.
    attr.disabled = 1;
    attr.enable_on_exec = 1;
  }
  s.fd = CounterFd::open(attr, pid);
  if (s.fd.valid()) return;
  int err = errno;
  for (auto& other : slots_) other.fd.reset();
  if (err == ESRCH) throw Error(fmt::format("cannot attach counters to pid {}: no such process", pid));
  if (err == EACCES || err == EPERM)
    throw Error(fmt::format("cannot count '{}' on pid {}: {}", s.event.name, pid, permission_hint()));
  throw Error(fmt::format("cannot open counter '{}' on pid {}: {}", s.event.name, pid, std::strerror(err)));
}

void Counters::attach(pid_t pid) {
  for (auto& s : slots_) s.fd.reset();
  for (size_t i = 0; i < slots_.size(); ++i) open_slot(i, pid);
}

std::map<std::string, nw::CounterValue> Counters::read_and_close() {
  std::map<std::string, nw::CounterValue> out;
  std::map<std::string, RawCount> msr;
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (!s.fd.valid()) continue;
    RawCount c;
    try {
      c = s.fd.read();
    } catch (const std::exception& e) {
      for (auto& other : slots_) other.fd.reset();
      throw Error(fmt::format("reading counter '{}': {}", s.event.name, e.what()));
    }
    out[s.event.name] = scale_count(c.value, c.time_enabled_ns, c.time_running_ns);
    if (s.hidden) msr[s.event.name] = c;
  }
  for (auto& s : slots_) s.fd.reset();

  if (effective_ghz_ && msr.size() == 3) {
    const auto& a = msr["msr/aperf/"];
    const auto& m = msr["msr/mperf/"];
    const auto& t = msr["msr/tsc/"];
    double scaling = std::min({out["msr/aperf/"].scaling, out["msr/mperf/"].scaling, out["msr/tsc/"].scaling});
    out[kEffectiveGhz] = effective_ghz_counter(a.value, m.value, t.value, t.time_running_ns, scaling);
  }
  return out;
}

}  // namespace nw::probes
