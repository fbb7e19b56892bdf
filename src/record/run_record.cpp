#include "record/source_detail.h"
#include "record/run_record.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <type_traits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sources/vocabulary.h"
#include "stats/descriptive.h"

namespace nw {

using nlohmann::json;

// The parts of a blocking entry (detail.parts, written by the runner): each a noise entry of its
// own. Malformed parts are skipped; whatever the parts leave of the total is blocking:other, so
// they always sum to it.
static std::vector<NoiseEntry> blocking_parts(const NoiseEntry& total) {
  std::vector<NoiseEntry> out;
  const json parts = SourceDetail::from_json(total.detail).parts;
  if (!parts.is_array()) return out;
  uint64_t sum = 0;
  for (const auto& p : parts) {
    if (!p.is_object() || !p.contains("source") || !p["source"].is_string()) continue;
    NoiseEntry e;
    e.source = p["source"].get<std::string>();
    e.count = p.value("count", uint64_t(0));
    e.time_ns = p.value("time_ns", uint64_t(0));
    e.max_ns = p.value("max_ns", uint64_t(0));
    if (p.contains("detail")) e.detail = p["detail"];
    if (sources::blocking_part(sources::parse(e.source)) == sources::BlockingPart::none || sum + e.time_ns > total.time_ns)
      continue;
    sum += e.time_ns;
    out.push_back(std::move(e));
  }
  if (!out.empty() && sum < total.time_ns) {
    std::string other = sources::format(sources::kBlocking, sources::kBlockingOther);
    auto it = std::find_if(out.begin(), out.end(), [&](const NoiseEntry& e) { return e.source == other; });
    if (it == out.end()) it = out.insert(out.end(), NoiseEntry{other, 0, 0, 0, nullptr});
    it->time_ns += total.time_ns - sum;
  }
  return out;
}

std::vector<NoiseEntry> RunSample::all_noise() const {
  std::vector<NoiseEntry> out;
  for (const auto& e : noise) {
    auto parts = e.source == sources::kBlocking ? blocking_parts(e) : std::vector<NoiseEntry>{};
    if (parts.empty())
      out.push_back(e);
    else
      out.insert(out.end(), parts.begin(), parts.end());
  }
  if (steal_ns > 0 && !find(std::string(sources::kSteal)))
    out.push_back({std::string(sources::kSteal), 0, steal_ns, steal_ns, nullptr});  // time, no events counted
  return out;
}

uint64_t RunSample::stolen_ns(std::string_view bench_comm) const {
  uint64_t s = 0;
  for (const auto& e : all_noise())
    if (sources::is_stolen(sources::parse(e.source), bench_comm)) s += e.time_ns;
  return s;
}

uint64_t RunSample::own_cpu_ns() const {
  if (!cpu_ns) return user_ns + sys_ns;
  uint64_t irq = cpu_irq_ns.value_or(0);
  return *cpu_ns > irq ? *cpu_ns - irq : 0;
}

std::optional<uint64_t> RunSample::accounted_ns() const {
  if (!cpu_ns) return std::nullopt;
  auto time_of = [&](std::string_view source) {
    const NoiseEntry* e = find(std::string(source));
    return e ? e->time_ns : uint64_t(0);
  };
  const uint64_t own = own_cpu_ns(), fault = time_of(sources::kFault), frequency = time_of(sources::kFrequency);
  const uint64_t stolen = stolen_ns();
  return (own > fault ? own - fault : 0) + blocking_ns + (stolen > frequency ? stolen - frequency : 0);
}

std::optional<uint64_t> RunSample::unaccounted_ns() const {
  auto a = accounted_ns();
  if (!a) return std::nullopt;
  return wall_ns > *a ? wall_ns - *a : 0;
}

const NoiseEntry* RunSample::find(const std::string& source) const {
  for (const auto& e : noise)
    if (e.source == source) return &e;
  return nullptr;
}

std::vector<const RunSample*> RunRecord::measured() const {
  std::vector<const RunSample*> out;
  for (const auto& r : samples)
    if (!r.warmup && !r.interrupted) out.push_back(&r);
  return out;
}

void RunRecord::add_unavailable(std::string probe, std::string reason) {
  for (const auto& u : unavailable)
    if (u.probe == probe) return;
  unavailable.push_back({std::move(probe), std::move(reason)});
}

Summary summarize(const RunRecord& rec) {
  Summary s;
  std::vector<double> w;
  for (const auto* r : rec.measured()) w.push_back(double(r->wall_ns));
  s.runs = int(w.size());
  if (w.empty()) return s;
  s.mean_ns = stats::mean(w);
  s.median_ns = stats::median(w);
  s.stddev_ns = w.size() > 1 ? stats::stddev(w) : 0.0;
  s.cv = s.mean_ns > 0 ? s.stddev_ns / s.mean_ns : 0.0;
  auto [lo, hi] = std::minmax_element(w.begin(), w.end());
  s.min_ns = *lo;
  s.max_ns = *hi;
  return s;
}

// ---- to JSON ----------------------------------------------------------------------------

json noise_entry_json(const NoiseEntry& e) {
  json j = {{"source", e.source}, {"count", e.count}, {"time_ns", e.time_ns}, {"max_ns", e.max_ns}};
  if (!e.detail.is_null()) j["detail"] = e.detail;
  return j;
}

static json switches_to_json(const SwitchCounts& s) {
  return {{"voluntary", s.voluntary}, {"involuntary", s.involuntary}};
}

// A window entry: what is measured per window (see RunSample::window).
static json window_to_json(const RunSample& r) {
  json j = {{"index", r.index},       {"warmup", r.warmup},           {"window", *r.window},
            {"process_run", r.process_run.value_or(0)}, {"wall_ns", r.wall_ns}, {"migrations", r.migrations},
            {"blocking_ns", r.blocking_ns}};
  if (!r.label.is_null()) j["label"] = r.label;
  if (r.paused_ns) j["paused_ns"] = *r.paused_ns;
  if (r.pauses) j["pauses"] = *r.pauses;
  if (r.paused_in_wall) j["paused_in_wall"] = true;
  if (r.harness_duration_ns) j["harness_duration_ns"] = *r.harness_duration_ns;
  json noise = json::array();
  for (const auto& e : r.noise) noise.push_back(noise_entry_json(e));
  j["noise"] = std::move(noise);
  if (r.interrupted) j["interrupted"] = true;
  return j;
}

static json run_to_json(const RunSample& r) {
  if (r.window) return window_to_json(r);
  json j = {{"index", r.index},
            {"warmup", r.warmup},
            {"wall_ns", r.wall_ns},
            {"user_ns", r.user_ns},
            {"sys_ns", r.sys_ns},
            {"exit_status", r.exit_status},
            {"signal", r.signal ? json(*r.signal) : json(nullptr)},
            {"migrations", r.migrations},
            {"voluntary_switches", r.voluntary_switches},
            {"involuntary_switches", r.involuntary_switches},
            {"minor_faults", r.minor_faults},
            {"major_faults", r.major_faults},
            {"steal_ns", r.steal_ns},
            {"blocking_ns", r.blocking_ns}};
  json noise = json::array();
  for (const auto& e : r.noise) noise.push_back(noise_entry_json(e));
  j["noise"] = std::move(noise);
  if (!r.counters.empty()) {
    json c = json::object();
    for (const auto& [name, v] : r.counters)
      c[name] = {{"value", v.value}, {"raw", v.raw}, {"scaling", v.scaling}};
    j["counters"] = std::move(c);
  }
  if (r.mean_khz) j["mean_khz"] = *r.mean_khz;
  if (r.cpu_ns) j["cpu_ns"] = *r.cpu_ns;
  if (r.cpu_irq_ns) j["cpu_irq_ns"] = *r.cpu_irq_ns;
  if (r.cgroup_throttled_ns) j["cgroup_throttled_ns"] = *r.cgroup_throttled_ns;
  if (auto a = r.accounted_ns()) {
    j["accounted_ns"] = *a;
    j["unaccounted_ns"] = *r.unaccounted_ns();
  }
  if (r.probe_switches) {
    json ps = switches_to_json(r.probe_switches->seen);
    ps["before_tracking"] = switches_to_json(r.probe_switches->before_tracking);
    ps["unseen"] = r.probe_switches->unseen;
    j["probe_switches"] = std::move(ps);
  }
  if (r.neighbours) {
    json n = json::array();
    for (const auto& x : *r.neighbours) n.push_back({{"pid", x.pid}, {"comm", x.comm}, {"cpu_ns", x.cpu_ns}, {"cpu", x.cpu}});
    j["neighbours"] = std::move(n);
  }
  if (r.interrupted) j["interrupted"] = true;
  if (r.process_run) j["process_run"] = *r.process_run;
  if (!r.label.is_null()) j["label"] = r.label;
  if (r.pair) j["pair"] = *r.pair;
  return j;
}

json to_json(const RunRecord& rec) {
  json j;
  j["schema"] = rec.schema;
  j["version"] = rec.version;
  j["command"] = rec.command;
  j["cpus"] = rec.cpus;
  j["pinned"] = rec.pinned;
  if (!rec.cpu_reason.empty()) j["cpu_reason"] = rec.cpu_reason;
  j["host"] = {{"hostname", rec.host.hostname},
               {"kernel", rec.host.kernel},
               {"cpu_model", rec.host.cpu_model},
               {"virtualized", rec.host.virtualized},
               {"online_cpus", rec.host.online_cpus}};
  if (const auto& cg = rec.host.cgroup) {
    json c = {{"version", cg->version}, {"path", cg->path}};
    if (cg->quota_path) c["quota_path"] = *cg->quota_path;
    if (cg->quota_us) c["quota_us"] = *cg->quota_us;
    if (cg->period_us) c["period_us"] = *cg->period_us;
    if (cg->weight) c["weight"] = *cg->weight;
    j["host"]["cgroup"] = std::move(c);
  }
  if (const auto& ct = rec.host.container) {
    json c = {{"detected", ct->detected}, {"evidence", ct->evidence}};
    if (!ct->runtime.empty()) c["runtime"] = ct->runtime;
    if (ct->cpuset_path) c["cpuset"] = {{"path", *ct->cpuset_path}, {"cpus", ct->cpuset_cpus}};
    if (ct->memory_path) {
      c["memory"] = {{"path", *ct->memory_path}};
      if (ct->memory_limit_bytes) c["memory"]["limit_bytes"] = *ct->memory_limit_bytes;
      if (ct->memory_usage_bytes) c["memory"]["usage_bytes"] = *ct->memory_usage_bytes;
    }
    j["host"]["container"] = std::move(c);
  }
  json runs = json::array();
  for (const auto& r : rec.samples) runs.push_back(run_to_json(r));
  j["runs"] = std::move(runs);
  const auto& s = rec.summary;
  j["summary"] = {{"runs", s.runs},       {"mean_ns", s.mean_ns}, {"median_ns", s.median_ns},
                  {"stddev_ns", s.stddev_ns}, {"cv", s.cv},       {"min_ns", s.min_ns},
                  {"max_ns", s.max_ns}};
  json attr = json::array();
  for (const auto& a : rec.attribution) {
    json x = {{"source", a.source}, {"share", a.share}, {"mean_time_ns", a.mean_time_ns},
              {"mean_count", a.mean_count}, {"max_ns", a.max_ns}};
    if (a.share_low) x["share_low"] = *a.share_low;
    if (a.share_high) x["share_high"] = *a.share_high;
    if (!a.extra.is_null()) x["extra"] = a.extra;
    attr.push_back(std::move(x));
  }
  j["attribution"] = std::move(attr);
  json recs = json::array();
  for (const auto& r : rec.recommendations)
    recs.push_back({{"id", r.id},
                    {"title", r.title},
                    {"commands", r.commands},
                    {"addresses", r.addresses},
                    {"reboot", r.reboot},
                    {"tradeoff", r.tradeoff},
                    {"share", r.share}});
  j["recommendations"] = std::move(recs);
  json un = json::array();
  for (const auto& u : rec.unavailable) un.push_back({{"probe", u.probe}, {"reason", u.reason}});
  j["unavailable"] = std::move(un);
  j["warnings"] = rec.warnings;
  j["lost_events"] = rec.lost_events;
  if (rec.interrupted) j["interrupted"] = true;
  if (!rec.report.is_null()) j["report"] = rec.report;
  if (!rec.setup.is_null()) j["setup"] = rec.setup;
  if (!rec.process_runs.empty()) {
    json pr = json::array();
    for (const auto& r : rec.process_runs) pr.push_back(run_to_json(r));
    j["process_runs"] = std::move(pr);
  }
  if (rec.warmup_windows) j["warmup_windows"] = *rec.warmup_windows;
  if (rec.windows_exec) j["windows_exec"] = *rec.windows_exec;
  if (rec.windows_at) j["windows_at"] = *rec.windows_at;
  if (rec.windows_harness) j["windows_harness"] = *rec.windows_harness;
  if (rec.compare_sides) j["compare_sides"] = *rec.compare_sides;
  if (rec.runs_auto) j["runs_auto"] = *rec.runs_auto;
  if (rec.timeline) j["timeline"] = timeline_to_json(*rec.timeline);
  return j;
}

// ---- from JSON --------------------------------------------------------------------------

namespace {

// Reads an optional field with a type check; the error names the JSON path so users can fix it.
// Integers are range-checked: converting an out-of-range JSON number (1e70, -1 into a count)
// to an integer type is undefined behaviour, and a corrupt file must only ever be an error.
template <typename T>
T checked_integer(const json& v, const std::string& what) {
  if (!v.is_number()) throw std::runtime_error(fmt::format("{} has the wrong type ({})", what, v.type_name()));
  long double x = v.is_number_unsigned() ? (long double)v.get<uint64_t>()
                  : v.is_number_integer() ? (long double)v.get<int64_t>()
                                          : (long double)v.get<double>();
  if (!(x >= (long double)std::numeric_limits<T>::min() && x <= (long double)std::numeric_limits<T>::max()))
    throw std::runtime_error(fmt::format("{} is out of range", what));
  if (v.is_number_unsigned()) return T(v.get<uint64_t>());
  if (v.is_number_integer()) return T(v.get<int64_t>());
  return T(v.get<double>());
}

template <typename T>
void get_opt(const json& j, const char* key, T& out, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  const std::string what = where + "." + key;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    out = checked_integer<T>(*it, what);
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    if (!it->is_array()) throw std::runtime_error(fmt::format("{} has the wrong type ({})", what, it->type_name()));
    out.clear();
    for (const auto& e : *it) out.push_back(checked_integer<int>(e, what));
  } else {
    try {
      out = it->get<T>();
    } catch (const json::exception&) {
      throw std::runtime_error(fmt::format("{} has the wrong type ({})", what, it->type_name()));
    }
  }
}

template <typename T>
void get_req(const json& j, const char* key, T& out, const std::string& where) {
  if (!j.contains(key)) throw std::runtime_error(fmt::format("{} has no \"{}\" field", where, key));
  get_opt(j, key, out, where);
}

SwitchCounts switches_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + " is not an object");
  SwitchCounts s;
  get_opt(j, "voluntary", s.voluntary, where);
  get_opt(j, "involuntary", s.involuntary, where);
  return s;
}

RunSample run_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + " is not an object");
  RunSample r;
  get_opt(j, "index", r.index, where);
  get_opt(j, "warmup", r.warmup, where);
  get_req(j, "wall_ns", r.wall_ns, where);
  get_opt(j, "user_ns", r.user_ns, where);
  get_opt(j, "sys_ns", r.sys_ns, where);
  get_opt(j, "exit_status", r.exit_status, where);
  if (j.contains("signal") && !j["signal"].is_null()) {
    int sig = 0;
    get_opt(j, "signal", sig, where);
    r.signal = sig;
  }
  get_opt(j, "migrations", r.migrations, where);
  get_opt(j, "voluntary_switches", r.voluntary_switches, where);
  get_opt(j, "involuntary_switches", r.involuntary_switches, where);
  get_opt(j, "minor_faults", r.minor_faults, where);
  get_opt(j, "major_faults", r.major_faults, where);
  get_opt(j, "steal_ns", r.steal_ns, where);
  get_opt(j, "blocking_ns", r.blocking_ns, where);
  get_opt(j, "interrupted", r.interrupted, where);
  get_opt(j, "paused_in_wall", r.paused_in_wall, where);
  for (auto [key, field] :
       {std::pair{"window", &r.window}, std::pair{"process_run", &r.process_run}, std::pair{"pair", &r.pair}})
    if (j.contains(key) && !j[key].is_null()) {
      int v = 0;
      get_opt(j, key, v, where);
      if (v < 0) throw std::runtime_error(fmt::format("{}.{} is negative", where, key));
      *field = v;
    }
  if (j.contains("label")) r.label = j["label"];
  if (j.contains("mean_khz") && j["mean_khz"].is_number()) r.mean_khz = j["mean_khz"].get<double>();
  for (auto [key, field] : {std::pair{"cpu_ns", &r.cpu_ns}, std::pair{"cpu_irq_ns", &r.cpu_irq_ns},
                            std::pair{"cgroup_throttled_ns", &r.cgroup_throttled_ns},
                            std::pair{"paused_ns", &r.paused_ns}, std::pair{"pauses", &r.pauses},
                            std::pair{"harness_duration_ns", &r.harness_duration_ns}})
    if (j.contains(key) && !j[key].is_null()) {
      uint64_t v = 0;
      get_opt(j, key, v, where);
      *field = v;
    }
  if (j.contains("probe_switches")) {
    const auto& ps = j["probe_switches"];
    std::string w = where + ".probe_switches";
    ProbeSwitches p;
    p.seen = switches_from_json(ps, w);
    if (ps.contains("before_tracking")) p.before_tracking = switches_from_json(ps["before_tracking"], w + ".before_tracking");
    if (ps.contains("unseen")) get_opt(ps, "unseen", p.unseen, w);
    r.probe_switches = p;
  }
  if (j.contains("neighbours") && !j["neighbours"].is_null()) {
    const auto& n = j["neighbours"];
    if (!n.is_array()) throw std::runtime_error(where + ".neighbours is not an array");
    r.neighbours.emplace();
    for (size_t i = 0; i < n.size(); ++i) {
      std::string w = fmt::format("{}.neighbours[{}]", where, i);
      if (!n[i].is_object()) throw std::runtime_error(w + " is not an object");
      Neighbour x;
      get_req(n[i], "pid", x.pid, w);
      get_opt(n[i], "comm", x.comm, w);
      get_req(n[i], "cpu_ns", x.cpu_ns, w);
      get_opt(n[i], "cpu", x.cpu, w);
      r.neighbours->push_back(std::move(x));
    }
  }
  if (j.contains("noise")) {
    const auto& n = j["noise"];
    if (!n.is_array()) throw std::runtime_error(where + ".noise is not an array");
    for (size_t i = 0; i < n.size(); ++i) {
      std::string w = fmt::format("{}.noise[{}]", where, i);
      if (!n[i].is_object()) throw std::runtime_error(w + " is not an object");
      NoiseEntry e;
      get_req(n[i], "source", e.source, w);
      get_opt(n[i], "count", e.count, w);
      get_opt(n[i], "time_ns", e.time_ns, w);
      get_opt(n[i], "max_ns", e.max_ns, w);
      if (n[i].contains("detail")) e.detail = n[i]["detail"];
      r.noise.push_back(std::move(e));
    }
  }
  if (j.contains("counters") && j["counters"].is_object()) {
    for (const auto& [name, v] : j["counters"].items()) {
      CounterValue c;
      std::string w = where + ".counters." + name;
      if (v.is_number()) {
        c.value = v.get<double>();
      } else if (v.is_object()) {
        get_opt(v, "value", c.value, w);
        get_opt(v, "raw", c.raw, w);
        get_opt(v, "scaling", c.scaling, w);
      } else {
        throw std::runtime_error(w + " is neither a number nor an object");
      }
      r.counters[name] = c;
    }
  }
  return r;
}

}  // namespace

RunRecord run_record_from_json(const json& j) {
  if (!j.is_object()) throw std::runtime_error("not a noisewatch run report (top level is not an object)");
  RunRecord rec;
  auto schema = j.value("schema", std::string{});
  if (schema.rfind("noisewatch.run/", 0) != 0)
    throw std::runtime_error(schema.empty()
                                 ? "not a noisewatch run report (no \"schema\" field)"
                                 : "not a noisewatch run report (schema is \"" + schema + "\")");
  if (schema != "noisewatch.run/1")
    throw std::runtime_error("unsupported run report schema \"" + schema + "\" (this noisewatch reads noisewatch.run/1)");
  rec.schema = schema;
  const std::string top = "report";
  get_opt(j, "version", rec.version, top);
  get_opt(j, "command", rec.command, top);
  get_opt(j, "cpus", rec.cpus, top);
  get_opt(j, "pinned", rec.pinned, top);
  get_opt(j, "cpu_reason", rec.cpu_reason, top);
  if (j.contains("host") && j["host"].is_object()) {
    const auto& h = j["host"];
    get_opt(h, "hostname", rec.host.hostname, "host");
    get_opt(h, "kernel", rec.host.kernel, "host");
    get_opt(h, "cpu_model", rec.host.cpu_model, "host");
    get_opt(h, "virtualized", rec.host.virtualized, "host");
    get_opt(h, "online_cpus", rec.host.online_cpus, "host");
    if (h.contains("cgroup") && h["cgroup"].is_object()) {
      const auto& c = h["cgroup"];
      CgroupInfo cg;
      get_opt(c, "version", cg.version, "host.cgroup");
      get_opt(c, "path", cg.path, "host.cgroup");
      if (c.contains("quota_path") && c["quota_path"].is_string()) cg.quota_path = c["quota_path"].get<std::string>();
      if (c.contains("quota_us") && c["quota_us"].is_number_integer()) cg.quota_us = c["quota_us"].get<int64_t>();
      if (c.contains("period_us") && c["period_us"].is_number_integer()) cg.period_us = c["period_us"].get<int64_t>();
      if (c.contains("weight") && c["weight"].is_number_integer()) cg.weight = c["weight"].get<int64_t>();
      rec.host.cgroup = cg;
    }
    if (h.contains("container") && h["container"].is_object()) {
      const auto& c = h["container"];
      ContainerInfo ct;
      get_opt(c, "detected", ct.detected, "host.container");
      get_opt(c, "runtime", ct.runtime, "host.container");
      get_opt(c, "evidence", ct.evidence, "host.container");
      if (c.contains("cpuset") && c["cpuset"].is_object()) {
        ct.cpuset_path.emplace();
        get_opt(c["cpuset"], "path", *ct.cpuset_path, "host.container.cpuset");
        get_opt(c["cpuset"], "cpus", ct.cpuset_cpus, "host.container.cpuset");
      }
      if (c.contains("memory") && c["memory"].is_object()) {
        const auto& m = c["memory"];
        ct.memory_path.emplace();
        get_opt(m, "path", *ct.memory_path, "host.container.memory");
        for (auto [key, field] : {std::pair{"limit_bytes", &ct.memory_limit_bytes}, std::pair{"usage_bytes", &ct.memory_usage_bytes}})
          if (m.contains(key) && !m[key].is_null()) get_opt(m, key, field->emplace(), "host.container.memory");
      }
      rec.host.container = ct;
    }
  }
  if (!j.contains("runs") || !j["runs"].is_array()) throw std::runtime_error("report has no \"runs\" array");
  const auto& runs = j["runs"];
  for (size_t i = 0; i < runs.size(); ++i) rec.samples.push_back(run_from_json(runs[i], fmt::format("runs[{}]", i)));
  if (j.contains("attribution") && j["attribution"].is_array()) {
    for (const auto& a : j["attribution"]) {
      if (!a.is_object()) throw std::runtime_error("attribution entry is not an object");
      Attribution x;
      get_req(a, "source", x.source, "attribution");
      get_opt(a, "share", x.share, "attribution");
      get_opt(a, "mean_time_ns", x.mean_time_ns, "attribution");
      get_opt(a, "mean_count", x.mean_count, "attribution");
      get_opt(a, "max_ns", x.max_ns, "attribution");
      if (a.contains("share_low") && a["share_low"].is_number()) x.share_low = a["share_low"].get<double>();
      if (a.contains("share_high") && a["share_high"].is_number()) x.share_high = a["share_high"].get<double>();
      if (a.contains("extra")) x.extra = a["extra"];
      rec.attribution.push_back(std::move(x));
    }
  }
  if (j.contains("recommendations") && j["recommendations"].is_array()) {
    for (const auto& r : j["recommendations"]) {
      if (!r.is_object()) throw std::runtime_error("recommendation entry is not an object");
      Recommendation x;
      get_req(r, "id", x.id, "recommendations");
      get_opt(r, "title", x.title, "recommendations");
      get_opt(r, "commands", x.commands, "recommendations");
      get_opt(r, "addresses", x.addresses, "recommendations");
      get_opt(r, "reboot", x.reboot, "recommendations");
      get_opt(r, "tradeoff", x.tradeoff, "recommendations");
      get_opt(r, "share", x.share, "recommendations");
      rec.recommendations.push_back(std::move(x));
    }
  }
  if (j.contains("unavailable") && j["unavailable"].is_array()) {
    for (const auto& u : j["unavailable"]) {
      Unavailable x;
      get_opt(u, "probe", x.probe, "unavailable");
      get_opt(u, "reason", x.reason, "unavailable");
      rec.unavailable.push_back(std::move(x));
    }
  }
  get_opt(j, "warnings", rec.warnings, top);
  get_opt(j, "lost_events", rec.lost_events, top);
  get_opt(j, "interrupted", rec.interrupted, top);
  if (j.contains("report")) rec.report = j["report"];
  if (j.contains("setup")) rec.setup = j["setup"];
  if (j.contains("process_runs")) {
    if (!j["process_runs"].is_array()) throw std::runtime_error("report.process_runs is not an array");
    for (size_t i = 0; i < j["process_runs"].size(); ++i)
      rec.process_runs.push_back(run_from_json(j["process_runs"][i], fmt::format("process_runs[{}]", i)));
  }
  if (j.contains("warmup_windows") && !j["warmup_windows"].is_null()) {
    int n = 0;
    get_opt(j, "warmup_windows", n, top);
    rec.warmup_windows = n;
  }
  if (j.contains("windows_exec") && j["windows_exec"].is_string()) rec.windows_exec = j["windows_exec"].get<std::string>();
  if (j.contains("windows_at") && j["windows_at"].is_object()) rec.windows_at = j["windows_at"];
  if (j.contains("windows_harness") && j["windows_harness"].is_object()) rec.windows_harness = j["windows_harness"];
  if (j.contains("compare_sides") && j["compare_sides"].is_object()) rec.compare_sides = j["compare_sides"];
  if (j.contains("runs_auto") && j["runs_auto"].is_object()) rec.runs_auto = j["runs_auto"];
  if (j.contains("timeline") && !j["timeline"].is_null()) rec.timeline = timeline_from_json(j["timeline"]);
  rec.summary = summarize(rec);
  return rec;
}

RunRecord load_run_record(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{} is not valid JSON (byte {})", path, e.byte));
  }
  try {
    return run_record_from_json(j);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace nw
