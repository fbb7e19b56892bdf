#include "reports/sources.h"

#include <algorithm>
#include <map>
#include <set>

namespace nw::report {

namespace {

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

RunMatrix collect_sources(const RunRecord& rec) {
  RunMatrix m;
  m.cpus = double(std::max<size_t>(1, rec.pinned ? rec.cpus.size() : size_t(std::max(1, rec.host.online_cpus))));
  auto runs = rec.measured();
  const size_t n = runs.size();
  for (const auto* r : runs) {
    m.run_index.push_back(r->index);
    m.wall_ns.push_back(double(r->wall_ns));
  }

  const std::string bench_comm = sources::benchmark_comm(rec.command);
  std::vector<std::vector<NoiseEntry>> entries;  // per measured run, steal_ns as an entry
  for (const auto* r : runs) entries.push_back(r->all_noise());
  // A count source whose entries carry time anywhere in the record was measured as time.
  std::set<std::string> timed;
  for (const auto& run : entries)
    for (const auto& e : run)
      if (e.time_ns > 0) timed.insert(e.source);
  std::map<std::string, SourceSeries, std::less<>> by_name;
  auto series = [&](const std::string& name) -> SourceSeries& {
    auto& s = by_name[name];
    if (s.name.empty()) {
      s.name = name;
      s.kind = sources::kind_of(sources::parse(name), timed.count(name) > 0);
      s.time_ns.assign(n, 0.0);
      s.count.assign(n, 0.0);
    }
    return s;
  };
  bool has_steal_entry = false, has_migration_entry = false, has_fault_entry = false,
       has_frequency_entry = false;
  for (size_t i = 0; i < n; ++i) {
    has_steal_entry |= runs[i]->find(std::string(sources::kSteal)) != nullptr;
    for (const auto& e : entries[i]) {
      auto& s = series(e.source);
      // Several entries of one source in one run (e.g. migrations between different CPUs) add up.
      s.time_ns[i] += double(e.time_ns);
      s.count[i] += double(e.count);
      s.max_ns = std::max(s.max_ns, double(e.max_ns));
      merge_detail(s.detail, e.detail);
      if (e.source == sources::kFault && e.detail.is_object() && e.detail.contains("major") &&
          e.detail["major"].is_number() && e.detail["major"].get<double>() > 0)
        s.major_faults = true;
      has_migration_entry |= e.source == sources::kMigration;
      has_fault_entry |= e.source == sources::kFault;
      has_frequency_entry |= e.source == sources::kFrequency;
    }
  }
  // Fall back on the per-run fields when the probes did not report these as noise entries
  // (steal: RunSample::all_noise above).
  auto any = [&](auto field) {
    return std::any_of(runs.begin(), runs.end(), [&](const RunSample* r) { return field(*r) > 0; });
  };
  if (!has_migration_entry && any([](const RunSample& r) { return r.migrations; })) {
    auto& s = series(std::string(sources::kMigration));
    for (size_t i = 0; i < n; ++i) s.count[i] = double(runs[i]->migrations);
  }
  if (!has_fault_entry && any([](const RunSample& r) { return r.minor_faults + r.major_faults; })) {
    auto& s = series(std::string(sources::kFault));
    for (size_t i = 0; i < n; ++i) s.count[i] = double(runs[i]->minor_faults + runs[i]->major_faults);
  }
  if (auto f = by_name.find(sources::kFault); f != by_name.end() && any([](const RunSample& r) { return r.major_faults; }))
    f->second.major_faults = true;
  if (auto st = by_name.find(sources::kSteal); !has_steal_entry && st != by_name.end()) st->second.detail["from"] = "steal_ns";

  // Frequency model: the benchmark's own compute time B = T - stolen - blocking scales as 1/f
  // (measured fault time is the benchmark's own kernel work, and contention is time one of its
  // tasks computed while another waited: both scale too, so they stay in B),
  // so at the fastest run's frequency f_ref it would have taken B * f / f_ref; the difference
  // B * (1 - f / f_ref) is time lost to running slower. Only when every run has a frequency.
  bool all_khz = n > 0 && std::all_of(runs.begin(), runs.end(), [](const RunSample* r) {
                   return r->mean_khz && *r->mean_khz > 0;
                 });
  if (!has_frequency_entry && all_khz) {
    double f_ref = 0;
    for (const auto* r : runs) f_ref = std::max(f_ref, *r->mean_khz);
    auto& s = series(std::string(sources::kFrequency));
    for (size_t i = 0; i < n; ++i) {
      double other = 0;
      for (const auto& [name, src] : by_name)
        if (src.kind == Kind::time && name != sources::kFrequency &&
            (sources::parse(name).category == sources::kBlocking || sources::is_stolen(sources::parse(name), bench_comm)))
          other += src.time_ns[i];
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
