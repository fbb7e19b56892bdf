// SPDX-License-Identifier: Apache-2.0
#include "timeline/trace_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::timeline {

using nlohmann::json;

namespace {

// Trace-event times are microseconds; ns precision is kept in the fraction.
double us(uint64_t ns) { return double(ns) / 1000.0; }

std::string category(const std::string& source) { return source.substr(0, source.find(':')); }

// Preemptions and contention are named by the task that ran (its comm), everything else by source.
std::string slice_name(const std::string& source) {
  auto cat = category(source);
  if ((cat == "preemption" || cat == "contention") && source.size() > cat.size() + 1)
    return source.substr(cat.size() + 1);
  return source;
}

json meta(const char* what, int pid, std::optional<int> tid, json args) {
  json m = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", std::move(args)}};
  if (tid) m["tid"] = *tid;
  return m;
}

struct Slice {
  uint64_t start, dur;
  json event;
};

// A track's slices must nest (trace viewers drop slices that overlap without nesting). On one
// CPU they do, but spans measured on the scheduler's clock and interrupts on ktime can disagree
// by a little at the edges: a slice that outlasts the one it starts in is cut at its end (its
// measured length stays in args.dur_ns).
void nest(std::vector<Slice>& slices) {
  std::sort(slices.begin(), slices.end(),
            [](const Slice& a, const Slice& b) { return a.start != b.start ? a.start < b.start : a.dur > b.dur; });
  std::vector<uint64_t> open;  // ends of the enclosing slices
  for (auto& s : slices) {
    while (!open.empty() && open.back() <= s.start) open.pop_back();
    uint64_t end = s.start + s.dur;
    if (!open.empty() && end > open.back()) {
      end = open.back();
      s.dur = end - s.start;
    }
    open.push_back(end);
  }
}

}  // namespace

json trace_events(const Recording& rec, const std::string& command) {
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (const auto& s : rec.spans) origin = std::min(origin, s.start_ns);
  for (const auto& e : rec.events) origin = std::min(origin, e.start_ns);
  if (origin == std::numeric_limits<uint64_t>::max()) origin = 0;

  json events = json::array();
  events.push_back(meta("process_name", kCpuPid, std::nullopt, {{"name", "CPUs"}}));
  events.push_back(meta("process_sort_index", kCpuPid, std::nullopt, {{"sort_index", 1}}));
  events.push_back(meta("process_name", kBenchPid, std::nullopt, {{"name", "benchmark: " + command}}));
  events.push_back(meta("process_sort_index", kBenchPid, std::nullopt, {{"sort_index", 0}}));
  for (auto [tid, name] : {std::pair{kRunsTid, "process runs"}, {kWindowsTid, "windows"}, {kBlockingTid, "blocking"}}) {
    events.push_back(meta("thread_name", kBenchPid, tid, {{"name", name}}));
    events.push_back(meta("thread_sort_index", kBenchPid, tid, {{"sort_index", tid}}));
  }
  std::set<int> cpus;
  for (const auto& e : rec.events)
    if (e.source != "blocking") cpus.insert(e.cpu);
  for (int c : cpus) {
    events.push_back(meta("thread_name", kCpuPid, c, {{"name", fmt::format("CPU {}", c)}}));
    events.push_back(meta("thread_sort_index", kCpuPid, c, {{"sort_index", c}}));
  }

  std::map<std::pair<int, int>, std::vector<Slice>> tracks;
  for (const auto& s : rec.spans) {
    std::string name = s.window ? fmt::format("window {}", *s.window) : fmt::format("process run {}", s.process_run);
    if (!s.label.empty()) name += " (" + s.label + ")";
    if (s.warmup) name += " [warm-up]";
    json args = {{"process_run", s.process_run}};
    if (s.window) args["window"] = *s.window;
    if (s.entry >= 0) args["run"] = s.entry;
    uint64_t dur = s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
    json ev = {{"name", name},     {"cat", s.window ? "window" : "process_run"}, {"ph", "X"},
               {"pid", kBenchPid}, {"tid", s.window ? kWindowsTid : kRunsTid},   {"args", std::move(args)}};
    tracks[{kBenchPid, s.window ? kWindowsTid : kRunsTid}].push_back(
        {s.start_ns - std::min(s.start_ns, origin), dur, std::move(ev)});
  }
  for (const auto& e : rec.events) {
    bool blocking = e.source == "blocking";
    json args = {{"source", e.source}, {"dur_ns", e.dur_ns}, {"process_run", e.process_run}};
    if (e.pid >= 0) args["pid"] = e.pid;
    if (e.window) args["window"] = e.window - 1;
    if (blocking) args["cpu"] = e.cpu;
    json ev = {{"name", slice_name(e.source)},
               {"cat", category(e.source)},
               {"ph", "X"},
               {"pid", blocking ? kBenchPid : kCpuPid},
               {"tid", blocking ? kBlockingTid : e.cpu},
               {"args", std::move(args)}};
    tracks[{blocking ? kBenchPid : kCpuPid, blocking ? kBlockingTid : e.cpu}].push_back(
        {e.start_ns - std::min(e.start_ns, origin), e.dur_ns, std::move(ev)});
  }
  for (auto& [track, slices] : tracks) {
    nest(slices);
    for (auto& s : slices) {
      s.event["ts"] = us(s.start);
      s.event["dur"] = us(s.dur);
      events.push_back(std::move(s.event));
    }
  }
  const uint64_t dropped = rec.dropped_rate + rec.dropped_full + rec.dropped_cap;
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"tool", "noisewatch"},
            {"version", NOISEWATCH_VERSION},
            {"command", command},
            {"clock", "CLOCK_MONOTONIC, from the first process run's start"},
            {"origin_ns", origin},
            {"threshold_ns", rec.threshold_ns},
            {"events", rec.events.size()},
            {"dropped", dropped},
            {"dropped_rate", rec.dropped_rate},
            {"dropped_ring_full", rec.dropped_full},
            {"dropped_memory", rec.dropped_cap}}}};
}

void write_trace(const std::string& path, const Recording& rec, const std::string& command) {
  std::ofstream out(path);
  if (!out) throw Error(fmt::format("--timeline: cannot write {}: {}", path, std::strerror(errno)));
  out << trace_events(rec, command).dump() << '\n';
  if (!out) throw Error(fmt::format("--timeline: writing {} failed: {}", path, std::strerror(errno)));
}

}  // namespace nw::timeline
