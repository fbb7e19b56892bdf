#include "runner/noise_merge.h"

#include <algorithm>
#include <map>
#include <set>

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
  for (const auto& e : events) {
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
    a.entry.detail = std::move(d);
    out.push_back(std::move(a.entry));
  }
  // Largest first: what a reader of the raw record wants to see first.
  std::stable_sort(out.begin(), out.end(), [](const NoiseEntry& x, const NoiseEntry& y) {
    return x.time_ns != y.time_ns ? x.time_ns > y.time_ns : x.count > y.count;
  });
  return out;
}

}  // namespace nw::runner
