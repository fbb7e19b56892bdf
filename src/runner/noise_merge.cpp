// SPDX-License-Identifier: Apache-2.0
#include "runner/noise_merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "record/source_detail.h"
#include "sources/vocabulary.h"

namespace nw::runner {

std::vector<NoiseEntry> merge_noise(const std::vector<probes::NoiseEvent>& events) {
  struct Acc {
    NoiseEntry entry;
    std::map<int, uint64_t> time_by_cpu;
    std::set<int64_t> pids;
    std::map<std::pair<int, int>, uint64_t> paths;
    SourceDetail detail;  // irq, cgroup
  };
  std::map<std::string, Acc> by_source;
  std::map<std::string, TimerLate> timer_late;  // per source: the lateness of the timers that ended its spans
  for (const auto& e : events) {
    SourceDetail d = SourceDetail::from_json(e.detail);
    if (d.timer_late_event) {
      auto& l = timer_late[e.source];
      l.count += e.count;
      l.time_ns += e.time_ns;
      l.max_ns = std::max(l.max_ns, e.max_ns);
      continue;
    }
    auto& a = by_source[e.source];
    a.entry.source = e.source;
    a.entry.count += e.count;
    a.entry.time_ns += e.time_ns;
    a.entry.max_ns = std::max(a.entry.max_ns, e.max_ns);
    a.time_by_cpu[e.cpu] += e.time_ns;
    if (d.pid) a.pids.insert(*d.pid);
    if (d.irq) a.detail.irq = d.irq;
    if (d.cgroup_id) a.detail.cgroup_id = d.cgroup_id;
    if (d.from && d.to) a.paths[{*d.from, *d.to}] += e.count;
    if (d.irq_thread_event) {
      a.detail.threaded_count = a.detail.threaded_count.value_or(0) + e.count;
      a.detail.threaded_ns = a.detail.threaded_ns.value_or(0) + e.time_ns;
    }
  }
  std::vector<NoiseEntry> out;
  for (auto& [src, a] : by_source) {
    SourceDetail& d = a.detail;
    for (const auto& [cpu, ns] : a.time_by_cpu) d.cpus.push_back(cpu), d.per_cpu_ns.push_back(ns);
    // On several CPUs a source's time is thread time (it adds up over them): each CPU's part is
    // what is bounded by the wall time.
    if (d.cpus.size() < 2 || !a.entry.time_ns) d.per_cpu_ns.clear();
    if (!a.pids.empty()) {
      d.pid = *a.pids.begin();
      if (a.pids.size() > 1) d.pids.assign(a.pids.begin(), a.pids.end());
    }
    for (const auto& [ft, n] : a.paths) d.paths.push_back({ft.first, ft.second, n});
    // Sleeps: how late their timers fired, where measured (hrtimers), as the sleeps' evidence.
    if (auto l = timer_late.find(src); l != timer_late.end()) d.timer_late = l->second;
    a.entry.detail = d.to_json();
    out.push_back(std::move(a.entry));
  }
  // The parts of blocking (blocking:sleep, blocking:io:<irq>, ...) go into the total's detail: the
  // noise list never holds the same time twice. The analyses see the parts (RunSample::all_noise).
  auto blocking =
      std::find_if(out.begin(), out.end(), [](const NoiseEntry& e) { return e.source == sources::kBlocking; });
  if (blocking != out.end()) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& e : out)
      if (sources::blocking_part(sources::parse(e.source)) != sources::BlockingPart::none)
        parts.push_back(noise_entry_json(e));
    if (!parts.empty()) {
      SourceDetail d = SourceDetail::from_json(blocking->detail);
      d.parts = std::move(parts);
      blocking->detail = d.to_json();
    }
  }
  std::erase_if(out, [](const NoiseEntry& e) {
    return sources::blocking_part(sources::parse(e.source)) != sources::BlockingPart::none;
  });
  // Largest first: what a reader of the raw record wants to see first.
  std::stable_sort(out.begin(), out.end(), [](const NoiseEntry& x, const NoiseEntry& y) {
    return x.time_ns != y.time_ns ? x.time_ns > y.time_ns : x.count > y.count;
  });
  return out;
}

void set_noise(RunSample& s, const std::vector<probes::NoiseEvent>& events) {
  s.noise = merge_noise(events);
  for (const auto& e : s.noise) {
    if (e.source == sources::kMigration) s.migrations = e.count;
    if (e.source == sources::kBlocking) s.blocking_ns = e.time_ns;
  }
}

}  // namespace nw::runner
