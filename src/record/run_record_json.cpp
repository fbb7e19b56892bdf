// SPDX-License-Identifier: Apache-2.0
// The run record as the noisewatch.run/1 JSON of docs/contracts.md, both ways. Writing uses
// nlohmann's typed conversions (to_json found by ADL; NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE where
// every field is always written under its own name). Reading stays checked by hand: a saved record
// is user input, and each wrong type, out-of-range number or missing field must be a one-line
// std::runtime_error naming its JSON path, where nlohmann's from_json would throw its own
// exception without the path and convert an out-of-range number into an integer silently.
#include "record/run_record.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "system/huge_heap.h"

namespace nw {

using nlohmann::json;

// ---- to JSON ----------------------------------------------------------------------------

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SwitchCounts, voluntary, involuntary)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CounterValue, value, raw, scaling)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Neighbour, pid, comm, cpu_ns, cpu)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Summary, runs, mean_ns, median_ns, stddev_ns, cv, min_ns, max_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Recommendation, id, title, commands, addresses, reboot, tradeoff, share)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Unavailable, probe, reason)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WindowsAt, spec, binary, symbol, function)

// The optional fields below are left out when absent (docs/contracts.md), never written as null.
template <typename T>
static void put_if(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

static void to_json(json& j, const NoiseEntry& e) {
  j = {{"source", e.source}, {"count", e.count}, {"time_ns", e.time_ns}, {"max_ns", e.max_ns}};
  if (!e.detail.is_null()) j["detail"] = e.detail;
}

json noise_entry_json(const NoiseEntry& e) { return e; }

static void to_json(json& j, const ProbeSwitches& p) {
  j = p.seen;
  j["before_tracking"] = p.before_tracking;
  j["unseen"] = p.unseen;
}

// A window entry: what is measured per window (see RunSample::window).
static json window_json(const RunSample& r) {
  json j = {{"index", r.index},           {"warmup", r.warmup},
            {"window", *r.window},        {"wall_ns", r.wall_ns},
            {"migrations", r.migrations}, {"blocking_ns", r.blocking_ns},
            {"noise", r.noise},           {"process_run", r.process_run.value_or(0)}};
  if (!r.label.is_null()) j["label"] = r.label;
  put_if(j, "paused_ns", r.paused_ns);
  put_if(j, "pauses", r.pauses);
  if (r.paused_in_wall) j["paused_in_wall"] = true;
  put_if(j, "harness_duration_ns", r.harness_duration_ns);
  if (r.interrupted) j["interrupted"] = true;
  return j;
}

static void to_json(json& j, const RunSample& r) {
  if (r.window) {
    j = window_json(r);
    return;
  }
  j = {{"index", r.index},
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
       {"blocking_ns", r.blocking_ns},
       {"noise", r.noise}};
  if (!r.counters.empty()) j["counters"] = r.counters;
  put_if(j, "mean_khz", r.mean_khz);
  put_if(j, "cpu_ns", r.cpu_ns);
  put_if(j, "cpu_irq_ns", r.cpu_irq_ns);
  put_if(j, "cgroup_throttled_ns", r.cgroup_throttled_ns);
  if (auto a = r.accounted_ns()) {
    j["accounted_ns"] = *a;
    j["unaccounted_ns"] = *r.unaccounted_ns();
  }
  put_if(j, "probe_switches", r.probe_switches);
  put_if(j, "neighbours", r.neighbours);
  if (r.interrupted) j["interrupted"] = true;
  put_if(j, "process_run", r.process_run);
  if (!r.label.is_null()) j["label"] = r.label;
  put_if(j, "pair", r.pair);
}

static void to_json(json& j, const CgroupInfo& cg) {
  j = {{"version", cg.version}, {"path", cg.path}};
  put_if(j, "quota_path", cg.quota_path);
  put_if(j, "quota_us", cg.quota_us);
  put_if(j, "period_us", cg.period_us);
  put_if(j, "weight", cg.weight);
}

static void to_json(json& j, const ContainerInfo& ct) {
  j = {{"detected", ct.detected}, {"evidence", ct.evidence}};
  if (!ct.runtime.empty()) j["runtime"] = ct.runtime;
  if (ct.cpuset_path) j["cpuset"] = {{"path", *ct.cpuset_path}, {"cpus", ct.cpuset_cpus}};
  if (ct.memory_path) {
    j["memory"] = {{"path", *ct.memory_path}};
    put_if(j["memory"], "limit_bytes", ct.memory_limit_bytes);
    put_if(j["memory"], "usage_bytes", ct.memory_usage_bytes);
  }
}

static void to_json(json& j, const HostInfo& h) {
  j = {{"hostname", h.hostname},
       {"kernel", h.kernel},
       {"cpu_model", h.cpu_model},
       {"virtualized", h.virtualized},
       {"online_cpus", h.online_cpus}};
  put_if(j, "cgroup", h.cgroup);
  put_if(j, "container", h.container);
}

static void to_json(json& j, const Attribution& a) {
  j = {{"source", a.source},
       {"share", a.share},
       {"mean_time_ns", a.mean_time_ns},
       {"mean_count", a.mean_count},
       {"max_ns", a.max_ns}};
  put_if(j, "share_low", a.share_low);
  put_if(j, "share_high", a.share_high);
  if (!a.extra.is_null()) j["extra"] = a.extra;
}

static void to_json(json& j, const WindowsHarness& h) {
  j = {{"name", h.name}};
  put_if(j, "binary", h.binary);
  put_if(j, "output", h.output);
}

static void to_json(json& j, const CompareSides& c) {
  j = {{"A", c.a}, {"B", c.b}, {"max_pairs", c.max_pairs}, {"min_pairs", c.min_pairs}};
  put_if(j, "threshold_percent", c.threshold_percent);
  put_if(j, "alpha", c.alpha);
}

static void to_json(json& j, const RunsAuto& r) {
  j = {{"precision_percent", r.precision_percent},
       {"max_runs", r.max_runs},
       {"confidence_percent", r.confidence_percent},
       {"runs", r.measured_runs},
       {"reached", r.reached},
       {"achieved_percent", r.achieved_percent ? json(*r.achieved_percent) : json(nullptr)}};
}

json to_json(const RunRecord& rec) {
  json j = {{"schema", rec.schema},
            {"version", rec.version},
            {"command", rec.command},
            {"cpus", rec.cpus},
            {"pinned", rec.pinned},
            {"host", rec.host},
            {"runs", rec.samples},
            {"summary", rec.summary},
            {"attribution", rec.attribution},
            {"recommendations", rec.recommendations},
            {"unavailable", rec.unavailable},
            {"warnings", rec.warnings},
            {"lost_events", rec.lost_events}};
  if (!rec.cpu_reason.empty()) j["cpu_reason"] = rec.cpu_reason;
  if (rec.interrupted) j["interrupted"] = true;
  if (!rec.report.is_null()) j["report"] = rec.report;
  if (!rec.setup.is_null()) j["setup"] = rec.setup;
  if (!rec.process_runs.empty()) j["process_runs"] = rec.process_runs;
  put_if(j, "warmup_windows", rec.warmup_windows);
  put_if(j, "windows_exec", rec.windows_exec);
  put_if(j, "windows_at", rec.windows_at);
  put_if(j, "windows_harness", rec.windows_harness);
  put_if(j, "compare_sides", rec.compare_sides);
  put_if(j, "runs_auto", rec.runs_auto);
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
  long double x = v.is_number_unsigned()  ? (long double)v.get<uint64_t>()
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

// A field that may be absent or null: read with get_opt's checks when there.
template <typename T>
void get_optional(const json& j, const char* key, std::optional<T>& out, const std::string& where) {
  if (j.contains(key) && !j[key].is_null()) get_opt(j, key, out.emplace(), where);
}

template <typename T>
void read_field(const json& j, const char* key, T& out, const std::string& where) {
  get_opt(j, key, out, where);
}
template <typename T>
void read_field(const json& j, const char* key, std::optional<T>& out, const std::string& where) {
  get_optional(j, key, out, where);
}

// Fields of the object `j` (path `where`), each read by its type: absent or null leaves an
// optional empty, and the others at their defaults.
template <typename T>
struct Field {
  const char* key;
  T& out;
};
// Spelled out because clang before 17 deduces no template arguments for aggregates (the fuzz
// build uses Debian 12's clang 14).
template <typename T>
Field(const char*, T&) -> Field<T>;
template <typename... T>
void read_fields(const json& j, const std::string& where, Field<T>... fields) {
  (read_field(j, fields.key, fields.out, where), ...);
}

SwitchCounts switches_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + " is not an object");
  SwitchCounts s;
  get_opt(j, "voluntary", s.voluntary, where);
  get_opt(j, "involuntary", s.involuntary, where);
  return s;
}

// The array at `path` of objects, each read by `read` with its own path ("runs[0].noise[3]").
template <typename Read>
auto objects_from_json(const json& a, const std::string& path, Read read) {
  if (!a.is_array()) throw std::runtime_error(path + " is not an array");
  std::vector<decltype(read(a, path))> out;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string w = fmt::format("{}[{}]", path, i);
    if (!a[i].is_object()) throw std::runtime_error(w + " is not an object");
    out.push_back(read(a[i], w));
  }
  return out;
}

Neighbour neighbour_from_json(const json& j, const std::string& where) {
  Neighbour x;
  get_req(j, "pid", x.pid, where);
  get_opt(j, "comm", x.comm, where);
  get_req(j, "cpu_ns", x.cpu_ns, where);
  get_opt(j, "cpu", x.cpu, where);
  return x;
}

NoiseEntry noise_entry_from_json(const json& j, const std::string& where) {
  NoiseEntry e;
  get_req(j, "source", e.source, where);
  read_fields(j, where, Field{"count", e.count}, Field{"time_ns", e.time_ns}, Field{"max_ns", e.max_ns});
  if (j.contains("detail")) e.detail = j["detail"];
  return e;
}

RunSample run_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + " is not an object");
  RunSample r;
  read_fields(j, where, Field{"index", r.index}, Field{"warmup", r.warmup});
  get_req(j, "wall_ns", r.wall_ns, where);
  read_fields(j, where, Field{"user_ns", r.user_ns}, Field{"sys_ns", r.sys_ns}, Field{"exit_status", r.exit_status},
              Field{"signal", r.signal}, Field{"migrations", r.migrations},
              Field{"voluntary_switches", r.voluntary_switches}, Field{"involuntary_switches", r.involuntary_switches},
              Field{"minor_faults", r.minor_faults}, Field{"major_faults", r.major_faults},
              Field{"steal_ns", r.steal_ns}, Field{"blocking_ns", r.blocking_ns}, Field{"interrupted", r.interrupted},
              Field{"paused_in_wall", r.paused_in_wall});
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
  read_fields(j, where, Field{"cpu_ns", r.cpu_ns}, Field{"cpu_irq_ns", r.cpu_irq_ns},
              Field{"cgroup_throttled_ns", r.cgroup_throttled_ns}, Field{"paused_ns", r.paused_ns},
              Field{"pauses", r.pauses}, Field{"harness_duration_ns", r.harness_duration_ns});
  if (j.contains("probe_switches")) {
    const auto& ps = j["probe_switches"];
    std::string w = where + ".probe_switches";
    ProbeSwitches p;
    p.seen = switches_from_json(ps, w);
    if (ps.contains("before_tracking"))
      p.before_tracking = switches_from_json(ps["before_tracking"], w + ".before_tracking");
    if (ps.contains("unseen")) get_opt(ps, "unseen", p.unseen, w);
    r.probe_switches = p;
  }
  if (j.contains("neighbours") && !j["neighbours"].is_null())
    r.neighbours = objects_from_json(j["neighbours"], where + ".neighbours", neighbour_from_json);
  if (j.contains("noise")) r.noise = objects_from_json(j["noise"], where + ".noise", noise_entry_from_json);
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

// Its optional figures are read only where they have the right type; another type leaves one out.
CgroupInfo cgroup_from_json(const json& c) {
  CgroupInfo cg;
  get_opt(c, "version", cg.version, "host.cgroup");
  get_opt(c, "path", cg.path, "host.cgroup");
  if (c.contains("quota_path") && c["quota_path"].is_string()) cg.quota_path = c["quota_path"].get<std::string>();
  if (c.contains("quota_us") && c["quota_us"].is_number_integer()) cg.quota_us = c["quota_us"].get<int64_t>();
  if (c.contains("period_us") && c["period_us"].is_number_integer()) cg.period_us = c["period_us"].get<int64_t>();
  if (c.contains("weight") && c["weight"].is_number_integer()) cg.weight = c["weight"].get<int64_t>();
  return cg;
}

ContainerInfo container_from_json(const json& c) {
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
    get_optional(m, "limit_bytes", ct.memory_limit_bytes, "host.container.memory");
    get_optional(m, "usage_bytes", ct.memory_usage_bytes, "host.container.memory");
  }
  return ct;
}

HostInfo host_from_json(const json& h) {
  HostInfo host;
  read_fields(h, "host", Field{"hostname", host.hostname}, Field{"kernel", host.kernel},
              Field{"cpu_model", host.cpu_model}, Field{"virtualized", host.virtualized},
              Field{"online_cpus", host.online_cpus});
  if (h.contains("cgroup") && h["cgroup"].is_object()) host.cgroup = cgroup_from_json(h["cgroup"]);
  if (h.contains("container") && h["container"].is_object()) host.container = container_from_json(h["container"]);
  return host;
}

WindowsAt windows_at_from_json(const json& j) {
  WindowsAt w;
  read_fields(j, "windows_at", Field{"spec", w.spec}, Field{"binary", w.binary}, Field{"symbol", w.symbol},
              Field{"function", w.function});
  return w;
}

WindowsHarness windows_harness_from_json(const json& j) {
  WindowsHarness h;
  read_fields(j, "windows_harness", Field{"name", h.name}, Field{"binary", h.binary}, Field{"output", h.output});
  return h;
}

CompareSides compare_sides_from_json(const json& j) {
  CompareSides c;
  read_fields(j, "compare_sides", Field{"A", c.a}, Field{"B", c.b}, Field{"max_pairs", c.max_pairs},
              Field{"min_pairs", c.min_pairs}, Field{"threshold_percent", c.threshold_percent},
              Field{"alpha", c.alpha});
  return c;
}

RunsAuto runs_auto_from_json(const json& j) {
  RunsAuto r;
  read_fields(j, "runs_auto", Field{"precision_percent", r.precision_percent}, Field{"max_runs", r.max_runs},
              Field{"confidence_percent", r.confidence_percent}, Field{"runs", r.measured_runs},
              Field{"reached", r.reached}, Field{"achieved_percent", r.achieved_percent});
  return r;
}

}  // namespace

RunRecord run_record_from_json(const json& j) {
  if (!j.is_object()) throw std::runtime_error("not a noisewatch run report (top level is not an object)");
  RunRecord rec;
  auto schema = j.value("schema", std::string{});
  if (schema.rfind("noisewatch.run/", 0) != 0)
    throw std::runtime_error(schema.empty() ? "not a noisewatch run report (no \"schema\" field)"
                                            : "not a noisewatch run report (schema is \"" + schema + "\")");
  if (schema != "noisewatch.run/1")
    throw std::runtime_error("unsupported run report schema \"" + schema +
                             "\" (this noisewatch reads noisewatch.run/1)");
  rec.schema = schema;
  const std::string top = "report";
  get_opt(j, "version", rec.version, top);
  get_opt(j, "command", rec.command, top);
  get_opt(j, "cpus", rec.cpus, top);
  get_opt(j, "pinned", rec.pinned, top);
  get_opt(j, "cpu_reason", rec.cpu_reason, top);
  if (j.contains("host") && j["host"].is_object()) rec.host = host_from_json(j["host"]);
  if (!j.contains("runs") || !j["runs"].is_array()) throw std::runtime_error("report has no \"runs\" array");
  rec.samples = objects_from_json(j["runs"], "runs", run_from_json);
  if (j.contains("attribution") && j["attribution"].is_array()) {
    for (const auto& a : j["attribution"]) {
      if (!a.is_object()) throw std::runtime_error("attribution entry is not an object");
      Attribution x;
      get_req(a, "source", x.source, "attribution");
      read_fields(a, "attribution", Field{"share", x.share}, Field{"mean_time_ns", x.mean_time_ns},
                  Field{"mean_count", x.mean_count}, Field{"max_ns", x.max_ns});
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
      read_fields(r, "recommendations", Field{"title", x.title}, Field{"commands", x.commands},
                  Field{"addresses", x.addresses}, Field{"reboot", x.reboot}, Field{"tradeoff", x.tradeoff},
                  Field{"share", x.share});
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
    rec.process_runs = objects_from_json(j["process_runs"], "process_runs", run_from_json);
  }
  get_optional(j, "warmup_windows", rec.warmup_windows, top);
  if (j.contains("windows_exec") && j["windows_exec"].is_string())
    rec.windows_exec = j["windows_exec"].get<std::string>();
  if (j.contains("windows_at") && j["windows_at"].is_object()) rec.windows_at = windows_at_from_json(j["windows_at"]);
  if (j.contains("windows_harness") && j["windows_harness"].is_object())
    rec.windows_harness = windows_harness_from_json(j["windows_harness"]);
  if (j.contains("compare_sides") && j["compare_sides"].is_object())
    rec.compare_sides = compare_sides_from_json(j["compare_sides"]);
  if (j.contains("runs_auto") && j["runs_auto"].is_object()) rec.runs_auto = runs_auto_from_json(j["runs_auto"]);
  if (j.contains("timeline") && !j["timeline"].is_null()) rec.timeline = timeline_from_json(j["timeline"]);
  rec.summary = summarize(rec);
  return rec;
}

RunRecord load_run_record(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  // The parsed document is a burst of small allocations, ~6 times the file's size, touched at
  // once: in huge pages, not one fault per 4 KiB (system/huge_heap.h).
  std::error_code size_error;
  const auto bytes = std::filesystem::file_size(path, size_error);
  sys::HugeHeapScope huge(size_error ? 0 : 6 * size_t(bytes));
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
