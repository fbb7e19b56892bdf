// SPDX-License-Identifier: Apache-2.0
#include "record/timeline_summary.h"

#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace nw {

using nlohmann::json;

json timeline_to_json(const TimelineSummary& t) {
  json spans = json::array();
  for (const auto& s : t.spans) {
    json ev = json::object();
    for (const auto& [src, c] : s.events) ev[src] = {{"count", c.count}, {"time_ns", c.time_ns}};
    spans.push_back({{"process_run", s.process_run},
                     {"window", s.window ? json(*s.window) : json(nullptr)},
                     {"run", s.run ? json(*s.run) : json(nullptr)},
                     {"start_ns", s.start_ns},
                     {"end_ns", s.end_ns},
                     {"warmup", s.warmup},
                     {"events", std::move(ev)}});
  }
  json marks = json::array();
  for (const auto& m : t.marks)
    marks.push_back({{"process_run", m.process_run},
                     {"at_ns", m.at_ns},
                     {"dur_ns", m.dur_ns},
                     {"source", m.source},
                     {"cpu", m.cpu}});
  return {{"file", t.file},
          {"threshold_ns", t.threshold_ns},
          {"events", t.events},
          {"dropped", t.dropped()},
          {"dropped_by", {{"rate", t.dropped_rate}, {"ring_full", t.dropped_full}, {"memory", t.dropped_memory}}},
          {"spans", std::move(spans)},
          {"marks", std::move(marks)}};
}

namespace {

uint64_t u64(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return 0;
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<int64_t>() >= 0))
    throw std::runtime_error(fmt::format("{}.{} is not a non-negative integer", where, key));
  return it->get<uint64_t>();
}

int small_int(const json& j, const char* key, const std::string& where) {
  uint64_t v = u64(j, key, where);
  if (v > uint64_t(std::numeric_limits<int>::max()))
    throw std::runtime_error(fmt::format("{}.{} is out of range", where, key));
  return int(v);
}

std::optional<int> opt_int(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return small_int(j, key, where);
}

const json& object_at(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + " is not an object");
  return j;
}

// Calls f(element, its path) for every element of the array `key`, each an object.
template <typename F>
void each_object(const json& j, const char* key, F f) {
  if (!j.contains(key)) return;
  if (!j[key].is_array()) throw std::runtime_error(fmt::format("timeline.{} is not an array", key));
  for (size_t i = 0; i < j[key].size(); ++i) {
    std::string where = fmt::format("timeline.{}[{}]", key, i);
    f(object_at(j[key][i], where), where);
  }
}

}  // namespace

TimelineSummary timeline_from_json(const json& j) {
  const std::string top = "timeline";
  object_at(j, top);
  TimelineSummary t;
  if (j.contains("file") && j["file"].is_string()) t.file = j["file"].get<std::string>();
  t.threshold_ns = u64(j, "threshold_ns", top);
  t.events = u64(j, "events", top);
  if (j.contains("dropped_by")) {
    const auto& d = object_at(j["dropped_by"], top + ".dropped_by");
    t.dropped_rate = u64(d, "rate", top + ".dropped_by");
    t.dropped_full = u64(d, "ring_full", top + ".dropped_by");
    t.dropped_memory = u64(d, "memory", top + ".dropped_by");
  } else {
    t.dropped_full = u64(j, "dropped", top);  // only a total: keep it
  }
  each_object(j, "spans", [&](const json& s, const std::string& w) {
    TimelineSpan x;
    x.process_run = small_int(s, "process_run", w);
    x.window = opt_int(s, "window", w);
    x.run = opt_int(s, "run", w);
    x.start_ns = u64(s, "start_ns", w);
    x.end_ns = u64(s, "end_ns", w);
    x.warmup = s.value("warmup", false);
    if (s.contains("events"))
      for (const auto& [src, c] : object_at(s["events"], w + ".events").items()) {
        std::string wc = w + ".events." + src;
        object_at(c, wc);
        x.events[src] = {u64(c, "count", wc), u64(c, "time_ns", wc)};
      }
    t.spans.push_back(std::move(x));
  });
  each_object(j, "marks", [&](const json& m, const std::string& w) {
    TimelineMarkSummary x;
    x.process_run = small_int(m, "process_run", w);
    x.at_ns = u64(m, "at_ns", w);
    x.dur_ns = u64(m, "dur_ns", w);
    if (!m.contains("source") || !m["source"].is_string()) throw std::runtime_error(w + ".source is not a string");
    x.source = m["source"].get<std::string>();
    x.cpu = small_int(m, "cpu", w);
    t.marks.push_back(std::move(x));
  });
  return t;
}

}  // namespace nw
