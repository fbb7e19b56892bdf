// SPDX-License-Identifier: Apache-2.0
#include "timeline/summarize.h"

#include <algorithm>
#include <map>

namespace nw::timeline {

void add_events(Recording& rec, std::vector<Event>&& events, int process_run) {
  for (auto& e : events) {
    if (rec.events.size() >= kMaxEvents) {
      ++rec.dropped_cap;
      continue;
    }
    e.process_run = process_run;
    rec.events.push_back(std::move(e));
  }
}

TimelineSummary summarize(const Recording& rec, const std::string& file, size_t marks) {
  TimelineSummary t;
  t.file = file;
  t.threshold_ns = rec.threshold_ns;
  t.events = rec.events.size();
  t.dropped_rate = rec.dropped_rate;
  t.dropped_full = rec.dropped_full;
  t.dropped_memory = rec.dropped_cap;
  std::map<int, uint64_t> run_start;
  std::map<std::pair<int, int>, size_t> span_at;  // (process run, window or -1) -> spans index
  for (const auto& s : rec.spans) {
    if (!s.window) run_start[s.process_run] = s.start_ns;
  }
  for (const auto& s : rec.spans) {
    uint64_t origin = run_start.count(s.process_run) ? run_start[s.process_run] : s.start_ns;
    TimelineSpan x;
    x.process_run = s.process_run;
    x.window = s.window;
    if (s.entry >= 0) x.run = s.entry;
    x.start_ns = s.start_ns > origin ? s.start_ns - origin : 0;
    x.end_ns = s.end_ns > origin ? s.end_ns - origin : 0;
    x.warmup = s.warmup;
    span_at[{s.process_run, s.window.value_or(-1)}] = t.spans.size();
    t.spans.push_back(std::move(x));
  }
  auto count_in = [&](int pr, int window, const Event& e) {
    auto it = span_at.find({pr, window});
    if (it == span_at.end()) return;
    auto& c = t.spans[it->second].events[e.source];
    c.count += 1;
    c.time_ns += e.dur_ns;
  };
  for (const auto& e : rec.events) {
    count_in(e.process_run, -1, e);
    if (e.window) count_in(e.process_run, int(e.window) - 1, e);
  }
  std::vector<const Event*> longest;
  for (const auto& e : rec.events) longest.push_back(&e);
  size_t keep = std::min(marks, longest.size());
  std::partial_sort(longest.begin(), longest.begin() + long(keep), longest.end(), [](const Event* a, const Event* b) {
    return a->dur_ns != b->dur_ns ? a->dur_ns > b->dur_ns : a->start_ns < b->start_ns;
  });
  longest.resize(keep);
  std::sort(longest.begin(), longest.end(), [](const Event* a, const Event* b) {
    return a->process_run != b->process_run ? a->process_run < b->process_run : a->start_ns < b->start_ns;
  });
  for (const auto* e : longest) {
    uint64_t origin = run_start.count(e->process_run) ? run_start[e->process_run] : e->start_ns;
    t.marks.push_back({e->process_run, e->start_ns > origin ? e->start_ns - origin : 0, e->dur_ns, e->source, e->cpu});
  }
  return t;
}

}  // namespace nw::timeline
