// SPDX-License-Identifier: Apache-2.0
#include "record/source_detail.h"

#include <algorithm>

namespace nw {

namespace {

using nlohmann::json;

template <typename T>
bool read(const json& v, std::optional<T>& into) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) return false;
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) return false;
  } else {
    if (!v.is_number_integer()) return false;
  }
  into = v.get<T>();
  return true;
}

template <typename T>
bool read_list(const json& v, std::vector<T>& into) {
  if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number(); })) return false;
  into = v.get<std::vector<T>>();
  return true;
}

bool read_paths(const json& v, std::vector<MigrationPath>& into) {
  if (!v.is_array()) return false;
  for (const auto& p : v) {
    if (!p.is_object() || !p.contains("from") || !p.contains("to") || !p["from"].is_number_integer() ||
        !p["to"].is_number_integer())
      return false;
    into.push_back({p["from"].get<int>(), p["to"].get<int>(), p.value("count", uint64_t(0))});
  }
  return true;
}

}  // namespace

SourceDetail SourceDetail::from_json(const json& j) {
  SourceDetail d;
  if (!j.is_object()) return d;
  std::optional<uint64_t> late_count, late_ns, late_max;
  for (const auto& [k, v] : j.items()) {
    bool known = false;
    if (k == "cpus") known = read_list(v, d.cpus);
    else if (k == "per_cpu_ns") known = read_list(v, d.per_cpu_ns);
    else if (k == "pid") known = read(v, d.pid);
    else if (k == "pids") known = read_list(v, d.pids);
    else if (k == "irq") known = read(v, d.irq);
    else if (k == "cgroup_id") known = read(v, d.cgroup_id);
    else if (k == "from" && v.is_string()) d.origin = v.get<std::string>(), known = true;
    else if (k == "from") known = read(v, d.from);
    else if (k == "to") known = read(v, d.to);
    else if (k == "paths") known = read_paths(v, d.paths);
    else if (k == "timer_late" && v.is_boolean()) d.timer_late_event = v.get<bool>(), known = true;
    else if (k == "timer_late_count") known = read(v, late_count);
    else if (k == "timer_late_ns") known = read(v, late_ns);
    else if (k == "timer_late_max_ns") known = read(v, late_max);
    else if (k == "irq_thread" && v.is_boolean()) d.irq_thread_event = v.get<bool>(), known = true;
    else if (k == "threaded_count") known = read(v, d.threaded_count);
    else if (k == "threaded_ns") known = read(v, d.threaded_ns);
    else if (k == "minor") known = read(v, d.minor);
    else if (k == "major") known = read(v, d.major);
    else if (k == "reference_khz") known = read(v, d.reference_khz);
    else if (k == "parts" && v.is_array()) d.parts = v, known = true;
    if (!known) d.other[k] = v;
  }
  if (late_count || late_ns || late_max)
    d.timer_late = TimerLate{late_count.value_or(0), late_ns.value_or(0), late_max.value_or(0)};
  return d;
}

json SourceDetail::to_json() const {
  json j = other.is_object() ? other : json::object();
  if (!cpus.empty()) j["cpus"] = cpus;
  if (!per_cpu_ns.empty()) j["per_cpu_ns"] = per_cpu_ns;
  if (pid) j["pid"] = *pid;
  if (!pids.empty()) j["pids"] = pids;
  if (irq) j["irq"] = *irq;
  if (cgroup_id) j["cgroup_id"] = *cgroup_id;
  if (!origin.empty()) j["from"] = origin;
  else if (from) j["from"] = *from;
  if (to) j["to"] = *to;
  if (!paths.empty()) {
    json p = json::array();
    for (const auto& m : paths) p.push_back({{"from", m.from}, {"to", m.to}, {"count", m.count}});
    j["paths"] = std::move(p);
  }
  if (timer_late_event) j["timer_late"] = true;
  if (timer_late) {
    j["timer_late_count"] = timer_late->count;
    j["timer_late_ns"] = timer_late->time_ns;
    j["timer_late_max_ns"] = timer_late->max_ns;
  }
  if (irq_thread_event) j["irq_thread"] = true;
  if (threaded_count) j["threaded_count"] = *threaded_count;
  if (threaded_ns) j["threaded_ns"] = *threaded_ns;
  if (minor) j["minor"] = *minor;
  if (major) j["major"] = *major;
  if (reference_khz) j["reference_khz"] = *reference_khz;
  if (!parts.is_null()) j["parts"] = parts;
  return j;
}

void SourceDetail::merge_run(const SourceDetail& run) {
  auto add_pid = [&](int64_t p) {
    if (std::find(pids.begin(), pids.end(), p) == pids.end()) pids.push_back(p);
  };
  // This detail's own pid opens the list (the first run merged into an empty one).
  if (pid) add_pid(*pid);
  if (run.pid) add_pid(*run.pid);
  for (int64_t p : run.pids) add_pid(p);
  if (!pid) pid = run.pid;
  from.reset();
  to.reset();
  paths.clear();
  if (cpus.empty()) cpus = run.cpus;
  if (per_cpu_ns.empty()) per_cpu_ns = run.per_cpu_ns;
  if (!irq) irq = run.irq;
  if (!cgroup_id) cgroup_id = run.cgroup_id;
  if (!timer_late) timer_late = run.timer_late;
  // A threaded IRQ's thread part adds up over runs, as the source's own count and time do.
  if (run.threaded_count) threaded_count = threaded_count.value_or(0) + *run.threaded_count;
  if (run.threaded_ns) threaded_ns = threaded_ns.value_or(0) + *run.threaded_ns;
  timer_late_event = timer_late_event || run.timer_late_event;
  if (!minor) minor = run.minor;
  if (!major) major = run.major;
  if (origin.empty()) origin = run.origin;
  if (!reference_khz) reference_khz = run.reference_khz;
  if (parts.is_null()) parts = run.parts;
  for (const auto& [k, v] : run.other.items())
    if (!other.contains(k)) other[k] = v;
}

}  // namespace nw
