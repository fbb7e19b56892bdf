#include "runner/noise_merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "probes/source_names.h"
#include "sources/vocabulary.h"

namespace nw::runner {

std::vector<NoiseEntry> merge_noise(const std::vector<probes::NoiseEvent>& events) {
  struct Acc {
    NoiseEntry entry;
    std::map<int, uint64_t> time_by_cpu;
    std::set<int64_t> pids;
    std::map<std::pair<int, int>, uint64_t> paths;
    int irq = -1;
    int64_t cgroup_id = -1;
  };
  std::map<std::string, Acc> by_source;
  std::map<std::string, NoiseEntry> timer_late;  // per source: the lateness of the timers that ended its spans
  for (const auto& e : events) {
    if (e.detail.is_object() && e.detail.contains(probes::kTimerLateDetail)) {
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
    if (e.detail.is_object()) {
      if (e.detail.contains("pid")) a.pids.insert(e.detail["pid"].get<int64_t>());
      if (e.detail.contains("irq")) a.irq = e.detail["irq"].get<int>();
      if (e.detail.contains("cgroup_id")) a.cgroup_id = e.detail["cgroup_id"].get<int64_t>();
      if (e.detail.contains("from"))
        a.paths[{e.detail["from"].get<int>(), e.detail["to"].get<int>()}] += e.count;
    }
  }
  std::vector<NoiseEntry> out;
  for (auto& [src, a] : by_source) {
    std::vector<int> cpus;
    std::vector<uint64_t> per_cpu;
    for (const auto& [cpu, ns] : a.time_by_cpu) cpus.push_back(cpu), per_cpu.push_back(ns);
    nlohmann::json d = {{"cpus", cpus}};
    // On several CPUs a source's time is thread time (it adds up over them): each CPU's part is
    // what is bounded by the wall time.
    if (cpus.size() > 1 && a.entry.time_ns) d["per_cpu_ns"] = per_cpu;
    if (!a.pids.empty()) {
      d["pid"] = *a.pids.begin();
      if (a.pids.size() > 1) d["pids"] = std::vector<int64_t>(a.pids.begin(), a.pids.end());
    }
    if (a.irq >= 0) d["irq"] = a.irq;
    if (a.cgroup_id >= 0) d["cgroup_id"] = a.cgroup_id;
    if (!a.paths.empty()) {
      nlohmann::json p = nlohmann::json::array();
      for (const auto& [ft, n] : a.paths) p.push_back({{"from", ft.first}, {"to", ft.second}, {"count", n}});
      d["paths"] = std::move(p);
    }
    // Sleeps: how late their timers fired, where measured (hrtimers), as the sleeps' evidence.
    if (auto l = timer_late.find(src); l != timer_late.end()) {
      d["timer_late_count"] = l->second.count;
      d["timer_late_ns"] = l->second.time_ns;
      d["timer_late_max_ns"] = l->second.max_ns;
    }
    a.entry.detail = std::move(d);
    out.push_back(std::move(a.entry));
  }
  // The parts of blocking (blocking:sleep, blocking:io:<irq>, ...) go into the total's detail: the
  // noise list never holds the same time twice. The analyses see the parts (RunSample::all_noise).
  auto blocking = std::find_if(out.begin(), out.end(), [](const NoiseEntry& e) { return e.source == sources::kBlocking; });
  if (blocking != out.end()) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& e : out)
      if (sources::blocking_part(sources::parse(e.source)) != sources::BlockingPart::none)
        parts.push_back(noise_entry_json(e));
    if (!parts.empty()) blocking->detail["parts"] = std::move(parts);
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

}  // namespace nw::runner
