#include "reports/sources.h"

#include <algorithm>
#include <map>
#include <set>

namespace nw::report {

namespace {

// Sources the probes may only count. A record whose entries of one of them carry time (the
// measured fault time of newer probes) makes it time-valued: see collect_sources.
bool is_count_source(const std::string& s) { return s == "migration" || s == "fault"; }

// Keeps the first value of each detail key; distinct pids are collected because a comm can be
// several processes over the repetitions (e.g. one kworker per run).
void merge_detail(nlohmann::json& into, const nlohmann::json& d) {
  if (!d.is_object()) return;
  auto add_pid = [&](const nlohmann::json& pid) {
    auto& pids = into["pids"];
    if (!pids.is_array()) pids = nlohmann::json::array();
    if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
  };
  for (const auto& [k, v] : d.items()) {
    if (k == "pid") add_pid(v);
    if (k == "pids") {
      if (v.is_array())
        for (const auto& pid : v) add_pid(pid);
      continue;
    }
    // Per-migration endpoints and paths are properties of one event, not of the source.
    if (k == "from" || k == "to" || k == "paths") continue;
    if (!into.contains(k)) into[k] = v;
  }
}

}  // namespace

std::string category_of(const std::string& source) {
  auto colon = source.find(':');
  return colon == std::string::npos ? source : source.substr(0, colon);
}

std::string name_of(const std::string& source) {
  auto colon = source.find(':');
  return colon == std::string::npos ? std::string{} : source.substr(colon + 1);
}

std::string benchmark_comm(const RunRecord& rec) {
  if (rec.command.empty()) return {};
  std::string c = rec.command.front();
  auto slash = c.rfind('/');
  if (slash != std::string::npos) c = c.substr(slash + 1);
  return c.substr(0, 15);
}

Group group_of(const std::string& source, const std::string& bench_comm) {
  if (source == "unexplained") return Group::unexplained;
  if (source == "blocking" || source == "fault") return Group::workload;
  // The benchmark's own threads competing for its CPUs is the workload's doing, not the OS's.
  auto cat = category_of(source);
  if (cat == "contention") return Group::workload;
  // Older records named that `preemption:<benchmark comm>`.
  if (cat == "preemption" && !bench_comm.empty() && name_of(source) == bench_comm) return Group::workload;
  return Group::machine;
}

bool is_kernel_thread(const std::string& comm) {
  static const char* prefixes[] = {"kworker/", "ksoftirqd/", "migration/", "rcu_", "rcuo", "rcub/",
                                   "kthreadd", "irq/", "watchdog/", "cpuhp/", "idle_inject/",
                                   "khugepaged", "kcompactd", "kswapd", "jbd2/", "writeback",
                                   "kblockd", "kauditd", "oom_reaper", "ksmd", "kintegrityd",
                                   "swapper/", "scsi_", "card", "xfsaild/", "ext4-", "kdamond"};
  for (const char* p : prefixes)
    if (comm.rfind(p, 0) == 0) return true;
  return false;
}

std::string describe_source(const std::string& source) {
  auto cat = category_of(source), name = name_of(source);
  if (cat == "preemption") return "preemption by " + name;
  if (cat == "contention") return "the benchmark's own threads competing for its CPUs (" + name + ")";
  if (source == "irq:local_timer") return "the timer tick (irq:local_timer)";
  if (cat == "irq") return "IRQ " + name;
  if (cat == "softirq") return "softirq " + name;
  if (cat == "nmi") return "NMIs (" + name + ")";
  if (cat == "smt") return name + " on the SMT sibling";
  if (source == "wakeup:idle") return "waking the CPU from idle states";
  if (source == "steal") return "hypervisor steal";
  if (source == "frequency") return "CPU frequency changes";
  if (source == "migration") return "migrations between CPUs";
  if (source == "fault") return "page faults";
  if (source == "blocking") return "the benchmark's own blocking (I/O, sleeps, waits outside it)";
  if (source == "unexplained") return "sources the probes cannot see (unexplained)";
  return source;
}

RunMatrix collect_sources(const RunRecord& rec) {
  RunMatrix m;
  m.cpus = double(std::max<size_t>(1, rec.pinned ? rec.cpus.size() : size_t(std::max(1, rec.host.online_cpus))));
  auto runs = rec.measured();
  const size_t n = runs.size();
  for (const auto* r : runs) {
    m.run_index.push_back(r->index);
    m.wall_ns.push_back(double(r->wall_ns));
  }

  // A count source whose entries carry time anywhere in the record was measured as time.
  std::set<std::string> timed;
  for (const auto* r : runs)
    for (const auto& e : r->noise)
      if (e.time_ns > 0) timed.insert(e.source);
  std::map<std::string, SourceSeries> by_name;
  auto series = [&](const std::string& name) -> SourceSeries& {
    auto& s = by_name[name];
    if (s.name.empty()) {
      s.name = name;
      s.kind = is_count_source(name) && !timed.count(name) ? Kind::count : Kind::time;
      s.time_ns.assign(n, 0.0);
      s.count.assign(n, 0.0);
    }
    return s;
  };
  bool has_steal_entry = false, has_migration_entry = false, has_fault_entry = false,
       has_frequency_entry = false;
  for (size_t i = 0; i < n; ++i) {
    for (const auto& e : runs[i]->noise) {
      auto& s = series(e.source);
      // Several entries of one source in one run (e.g. migrations between different CPUs) add up.
      s.time_ns[i] += double(e.time_ns);
      s.count[i] += double(e.count);
      s.max_ns = std::max(s.max_ns, double(e.max_ns));
      merge_detail(s.detail, e.detail);
      if (e.source == "fault" && e.detail.is_object() && e.detail.contains("major") &&
          e.detail["major"].is_number() && e.detail["major"].get<double>() > 0)
        s.major_faults = true;
      has_steal_entry |= e.source == "steal";
      has_migration_entry |= e.source == "migration";
      has_fault_entry |= e.source == "fault";
      has_frequency_entry |= e.source == "frequency";
    }
  }
  // Fall back on the per-run fields when the probes did not report these as noise entries.
  auto any = [&](auto field) {
    return std::any_of(runs.begin(), runs.end(), [&](const RunSample* r) { return field(*r) > 0; });
  };
  if (!has_steal_entry && any([](const RunSample& r) { return r.steal_ns; })) {
    auto& s = series("steal");
    for (size_t i = 0; i < n; ++i) {
      s.time_ns[i] = double(runs[i]->steal_ns);
      s.max_ns = std::max(s.max_ns, s.time_ns[i]);
    }
  }
  if (!has_migration_entry && any([](const RunSample& r) { return r.migrations; })) {
    auto& s = series("migration");
    for (size_t i = 0; i < n; ++i) s.count[i] = double(runs[i]->migrations);
  }
  if (!has_fault_entry && any([](const RunSample& r) { return r.minor_faults + r.major_faults; })) {
    auto& s = series("fault");
    for (size_t i = 0; i < n; ++i) s.count[i] = double(runs[i]->minor_faults + runs[i]->major_faults);
  }
  if (by_name.count("fault") && any([](const RunSample& r) { return r.major_faults; }))
    by_name["fault"].major_faults = true;
  if (!has_steal_entry && by_name.count("steal")) by_name["steal"].detail["from"] = "steal_ns";

  // Frequency model: the benchmark's own compute time B = T - stolen - blocking scales as 1/f
  // (measured fault time is the benchmark's own kernel work: it scales too, so it stays in B),
  // so at the fastest run's frequency f_ref it would have taken B * f / f_ref; the difference
  // B * (1 - f / f_ref) is time lost to running slower. Only when every run has a frequency.
  bool all_khz = n > 0 && std::all_of(runs.begin(), runs.end(), [](const RunSample* r) {
                   return r->mean_khz && *r->mean_khz > 0;
                 });
  if (!has_frequency_entry && all_khz) {
    double f_ref = 0;
    for (const auto* r : runs) f_ref = std::max(f_ref, *r->mean_khz);
    auto& s = series("frequency");
    for (size_t i = 0; i < n; ++i) {
      double other = 0;
      for (const auto& [name, src] : by_name)
        if (src.kind == Kind::time && name != "frequency" && name != "fault") other += src.time_ns[i];
      double busy = std::max(0.0, m.wall_ns[i] - other);
      s.time_ns[i] = busy * (1.0 - *runs[i]->mean_khz / f_ref);
      s.count[i] = 0;
      s.max_ns = std::max(s.max_ns, s.time_ns[i]);
    }
    s.detail["reference_khz"] = f_ref;
    m.frequency_modelled = true;
  }

  for (auto& [name, s] : by_name)
    if (s.kind == Kind::time) m.sources.push_back(std::move(s));
  for (auto& [name, s] : by_name)
    if (s.kind == Kind::count) m.sources.push_back(std::move(s));
  return m;
}

}  // namespace nw::report
