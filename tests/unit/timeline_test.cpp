// SPDX-License-Identifier: Apache-2.0
// --timeline: the Chrome trace-event writer, the record's summary and its round trip, and the
// HTML report's timeline chart (golden).
#include <gtest/gtest.h>

#include <algorithm>

#include "record/run_record.h"
#include "reports/svg_timeline.h"
#include "support/files.h"
#include "timeline/summarize.h"
#include "timeline/trace_writer.h"

namespace nw {
namespace {

using nlohmann::json;

timeline::Event event(uint64_t start, uint64_t dur, const std::string& source, int cpu, int pr, uint32_t window = 0,
                      int64_t pid = -1) {
  timeline::Event e;
  e.start_ns = start;
  e.dur_ns = dur;
  e.source = source;
  e.cpu = cpu;
  e.process_run = pr;
  e.window = window;
  e.pid = pid;
  return e;
}

// Two process runs 1 s apart, each with two windows; the hog in window 1 of each.
timeline::Recording recording() {
  timeline::Recording r;
  r.threshold_ns = 10'000;
  r.dropped_rate = 2;
  for (int pr = 0; pr < 2; ++pr) {
    uint64_t t0 = 1'000'000'000ull * uint64_t(pr + 1);
    timeline::Span run;
    run.start_ns = t0;
    run.end_ns = t0 + 100'000'000;
    run.process_run = pr;
    r.spans.push_back(run);
    for (int k = 0; k < 2; ++k) {
      timeline::Span w;
      w.start_ns = t0 + 10'000'000 + uint64_t(k) * 45'000'000;
      w.end_ns = w.start_ns + 40'000'000;
      w.process_run = pr;
      w.window = k;
      w.entry = pr * 2 + k;
      w.label = std::to_string(k);
      w.warmup = pr == 0 && k == 0;
      r.spans.push_back(w);
    }
    r.events.push_back(event(t0 + 60'000'000, 8'000'000, "preemption:nw_hog", 1, pr, 2, 4242));
    r.events.push_back(event(t0 + 61'000'000, 20'000, "irq:local_timer", 1, pr, 2));
    r.events.push_back(event(t0 + 20'000'000, 15'000, "softirq:TIMER", 0, pr, 1));
    r.events.push_back(event(t0 + 5'000'000, 2'000'000 + uint64_t(pr) * 500'000, "blocking", 1, pr));
  }
  return r;
}

TEST(TraceWriter, ChromeTraceEventFormat) {
  json t = timeline::trace_events(recording(), "./bench");
  ASSERT_TRUE(t["traceEvents"].is_array());
  EXPECT_EQ(t["displayTimeUnit"], "ns");
  EXPECT_EQ(t["otherData"]["dropped"], 2);
  EXPECT_EQ(t["otherData"]["threshold_ns"], 10000);
  std::map<std::string, int> names;
  int cpu_tracks = 0;
  for (const auto& e : t["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name" && e["pid"] == timeline::kCpuPid) ++cpu_tracks;
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number() && e.contains("tid")) << e.dump();
    names[e["name"].get<std::string>()]++;
    if (e["name"] == "nw_hog") {
      EXPECT_EQ(e["cat"], "preemption");
      EXPECT_EQ(e["pid"], timeline::kCpuPid);
      EXPECT_EQ(e["tid"], 1);
      EXPECT_EQ(e["args"]["pid"], 4242);
      EXPECT_EQ(e["args"]["window"], 1);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 8000.0);  // µs
    }
    if (e["name"] == "blocking") {
      EXPECT_EQ(e["pid"], timeline::kBenchPid);
      EXPECT_EQ(e["tid"], timeline::kBlockingTid);
    }
  }
  EXPECT_EQ(cpu_tracks, 2);  // CPUs 0 and 1
  EXPECT_EQ(names["nw_hog"], 2);
  EXPECT_EQ(names["irq:local_timer"], 2);
  EXPECT_EQ(names["process run 0"], 1);
  EXPECT_EQ(names["window 0 (0) [warm-up]"], 1);
  EXPECT_EQ(names["window 1 (1)"], 2);
  // Times start at the first process run: its slice is at 0.
  for (const auto& e : t["traceEvents"])
    if (e["name"] == "process run 0") EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.0);
}

TEST(TraceWriter, SlicesOnATrackNest) {
  timeline::Recording r;
  r.spans.push_back({0, 1'000'000, 0, std::nullopt, "", false, 0});
  // A preemption measured on the scheduler's clock, an IRQ on ktime that pokes out of its end.
  r.events.push_back(event(100'000, 50'000, "preemption:x", 1, 0));
  r.events.push_back(event(140'000, 20'000, "irq:virtio", 1, 0));
  json t = timeline::trace_events(r, "b");
  double p_end = 0, irq_ts = 0, irq_end = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["name"] == "x") p_end = e["ts"].get<double>() + e["dur"].get<double>();
    if (e["name"] == "irq:virtio") {
      irq_ts = e["ts"].get<double>();
      irq_end = irq_ts + e["dur"].get<double>();
      EXPECT_EQ(e["args"]["dur_ns"], 20000);  // what was measured is kept
    }
  }
  EXPECT_DOUBLE_EQ(irq_ts, 140.0);
  EXPECT_LE(irq_end, p_end);
}

TEST(TimelineSummary, CountsPerSpanAndLongestMarks) {
  auto s = timeline::summarize(recording(), "t.json", 3);
  EXPECT_EQ(s.file, "t.json");
  EXPECT_EQ(s.events, 8u);
  EXPECT_EQ(s.dropped(), 2u);
  ASSERT_EQ(s.spans.size(), 6u);
  const auto& run0 = s.spans[0];
  EXPECT_FALSE(run0.window);
  EXPECT_EQ(run0.start_ns, 0u);
  EXPECT_EQ(run0.end_ns, 100'000'000u);
  EXPECT_EQ(run0.events.size(), 4u);  // every event of the process run
  const auto& w1 = s.spans[2];
  EXPECT_EQ(w1.window, 1);
  EXPECT_EQ(w1.run, 1);
  EXPECT_EQ(w1.start_ns, 55'000'000u);
  ASSERT_EQ(w1.events.size(), 2u);
  EXPECT_EQ(w1.events.at("preemption:nw_hog").count, 1u);
  EXPECT_EQ(w1.events.at("preemption:nw_hog").time_ns, 8'000'000u);
  EXPECT_EQ(s.spans[1].events.count("softirq:TIMER"), 1u);
  ASSERT_EQ(s.marks.size(), 3u);  // the three longest, in time order
  EXPECT_EQ(s.marks[0].source, "preemption:nw_hog");
  EXPECT_EQ(s.marks[0].process_run, 0);
  EXPECT_EQ(s.marks[0].at_ns, 60'000'000u);
  EXPECT_EQ(s.marks[1].process_run, 1);
  EXPECT_EQ(s.marks[1].source, "blocking");
}

TEST(TimelineSummary, EventsPastTheCapAreCounted) {
  timeline::Recording r;
  std::vector<timeline::Event> many(timeline::kMaxEvents + 5);
  timeline::add_events(r, std::move(many), 3);
  EXPECT_EQ(r.events.size(), timeline::kMaxEvents);
  EXPECT_EQ(r.dropped_cap, 5u);
  EXPECT_EQ(r.events.back().process_run, 3);
}

TEST(TimelineSummary, RoundTripsInTheRecord) {
  RunRecord rec;
  rec.command = {"./b"};
  RunSample s;
  s.wall_ns = 5;
  rec.samples.push_back(s);
  rec.timeline = timeline::summarize(recording(), "t.json");
  auto back = run_record_from_json(to_json(rec));
  ASSERT_TRUE(back.timeline);
  EXPECT_EQ(timeline_to_json(*back.timeline), timeline_to_json(*rec.timeline));
  auto j = to_json(rec);
  j["timeline"]["spans"][0]["events"]["x"] = 3;
  EXPECT_THROW(run_record_from_json(j), std::runtime_error);
  j = to_json(rec);
  j["timeline"]["marks"][0]["at_ns"] = -4;
  EXPECT_THROW(run_record_from_json(j), std::runtime_error);
}

TEST(TimelineChart, Golden) {
  auto summary = timeline::summarize(recording(), "t.json");
  std::string svg = report::timeline_svg(summary, {"preemption:nw_hog", "irq:local_timer"});
  test::expect_golden(svg, std::string(NW_SOURCE_DIR) + "/tests/data/golden/report/timeline.svg");
  // What the golden must show: two rows, four windows, the events coloured by their series.
  EXPECT_NE(svg.find("process run 1</text>"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n'),
            1 + 2 + 6 + 8 + 1 + 5 + 1 + 1);  // open, labels, spans, events, axis
  EXPECT_NE(svg.find("fill=\"#d62728\"><title>preemption:nw_hog on CPU 1: 8.00 ms at 60.00 ms"), std::string::npos);
  auto legend = report::timeline_legend(summary, {"preemption:nw_hog", "irq:local_timer"});
  ASSERT_EQ(legend.size(), 3u);
  EXPECT_EQ(legend[0].first, "preemption:nw_hog");
  EXPECT_EQ(legend[2].first, "other");  // blocking, softirq:TIMER
}

TEST(TimelineChart, ManyProcessRunsAreCut) {
  TimelineSummary t;
  for (int pr = 0; pr < 50; ++pr) t.spans.push_back({pr, std::nullopt, pr, 0, 1000, false, {}});
  std::string svg = report::timeline_svg(t, {});
  EXPECT_NE(svg.find("the first 40 of 50 process runs"), std::string::npos);
  EXPECT_EQ(svg.find("process run 40</text>"), std::string::npos);
}

}  // namespace
}  // namespace nw
