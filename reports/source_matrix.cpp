// SPDX-License-Identifier: Apache-2.0
#include "reports/source_matrix.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "record/source_detail.h"

namespace nw::report {

namespace {

// A source's detail over the runs (SourceDetail::merge_run): a comm can be several processes over
// the repetitions (e.g. one kworker per run), so every pid is kept.
void merge_detail(nlohmann::json& into, const nlohmann::json& run) {
  SourceDetail d = SourceDetail::from_json(into);
  d.merge_run(SourceDetail::from_json(run));
  into = d.to_json();
}

// Sets what the report itself knows of a source (where steal came from, the reference clock).
void add_detail(nlohmann::json& into, const std::function<void(SourceDetail&)>& set) {
  SourceDetail d = SourceDetail::from_json(into);
  set(d);
  into = d.to_json();
}

}  // namespace

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
  bool has_steal_entry = false, has_migration_entry = false, has_fault_entry = false, has_frequency_entry = false;
  for (size_t i = 0; i < n; ++i) {
    has_steal_entry |= runs[i]->find(std::string(sources::kSteal)) != nullptr;
    for (const auto& e : entries[i]) {
      auto& s = series(e.source);
      // Several entries of one source in one run (e.g. migrations between different CPUs) add up.
      s.time_ns[i] += double(e.time_ns);
      s.count[i] += double(e.count);
      s.max_ns = std::max(s.max_ns, double(e.max_ns));
      merge_detail(s.detail, e.detail);
      if (e.source == sources::kFault && SourceDetail::from_json(e.detail).major.value_or(0) > 0) s.major_faults = true;
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
  if (auto f = by_name.find(sources::kFault);
      f != by_name.end() && any([](const RunSample& r) { return r.major_faults; }))
    f->second.major_faults = true;
  if (auto st = by_name.find(sources::kSteal); !has_steal_entry && st != by_name.end())
    add_detail(st->second.detail, [](SourceDetail& d) { d.origin = "steal_ns"; });

  // Frequency model: the benchmark's own compute time B = T - stolen - blocking scales as 1/f
  // (measured fault time is the benchmark's own kernel work, and contention is time one of its
  // tasks computed while another waited: both scale too, so they stay in B),
  // so at the fastest run's frequency f_ref it would have taken B * f / f_ref; the difference
  // B * (1 - f / f_ref) is time lost to running slower. Only when every run has a frequency.
  bool all_khz = n > 0 && std::all_of(runs.begin(), runs.end(),
                                      [](const RunSample* r) { return r->mean_khz && *r->mean_khz > 0; });
  if (!has_frequency_entry && all_khz) {
    double f_ref = 0;
    for (const auto* r : runs) f_ref = std::max(f_ref, *r->mean_khz);
    auto& s = series(std::string(sources::kFrequency));
    for (size_t i = 0; i < n; ++i) {
      double other = 0;
      for (const auto& [name, src] : by_name)
        if (src.kind == Kind::time && name != sources::kFrequency &&
            (sources::parse(name).category == sources::kBlocking ||
             sources::is_stolen(sources::parse(name), bench_comm)))
          other += src.time_ns[i];
      double busy = std::max(0.0, m.wall_ns[i] - other);
      s.time_ns[i] = busy * (1.0 - *runs[i]->mean_khz / f_ref);
      s.count[i] = 0;
      s.max_ns = std::max(s.max_ns, s.time_ns[i]);
    }
    add_detail(s.detail, [&](SourceDetail& d) { d.reference_khz = f_ref; });
    m.frequency_modelled = true;
  }

  // Overlap sources (smt): the benchmark ran all along; what the overlap cost it is fitted.
  for (auto& [name, s] : by_name)
    if (sources::is_overlap(sources::parse(name))) {
      s.kind = Kind::count;
      s.overlap_ns = std::exchange(s.time_ns, std::vector<double>(n, 0.0));
    }
  for (auto& [name, s] : by_name)
    if (s.kind == Kind::time) m.sources.push_back(std::move(s));
  for (auto& [name, s] : by_name)
    if (s.kind == Kind::count) m.sources.push_back(std::move(s));
  return m;
}

}  // namespace nw::report
