// SPDX-License-Identifier: Apache-2.0
// --windows: splitting a process run's events by window, the marker-fd line count, the options,
// and the window entries of the record.
#include <gtest/gtest.h>

#include "cli/window_options.h"
#include "common/errors.h"
#include "record/run_record.h"
#include "reports/advice_windows.h"
#include "runner/window_session.h"
#include "runner/window_split.h"

namespace nw {
namespace {

probes::NoiseEvent ev(const std::string& source, uint32_t window, uint64_t time_ns, uint64_t count = 1, int cpu = 1) {
  probes::NoiseEvent e;
  e.source = source;
  e.window = window;
  e.time_ns = time_ns;
  e.max_ns = time_ns;
  e.count = count;
  e.cpu = cpu;
  return e;
}

probes::WindowMark mark(uint64_t begin, uint64_t end) {
  probes::WindowMark m;
  m.begin_ns = begin;
  m.end_ns = end;
  return m;
}

TEST(WindowSplit, EachWindowGetsItsOwnEventsAndWallTime) {
  std::vector<probes::NoiseEvent> events = {ev("preemption:hog", 2, 5'000'000),
                                            ev("preemption:hog", 2, 1'000'000, 1, 0),  // window 1, two CPUs
                                            ev("irq:local_timer", 1, 3'000, 2),
                                            ev("irq:local_timer", 2, 4'000, 3),
                                            ev("preemption:other", 0, 9'000'000),  // between windows: nobody's
                                            ev("blocking", 3, 700),
                                            ev("migration", 3, 0, 4)};
  probes::WindowReadout marks;
  marks.windows = {mark(1000, 11'000'000), mark(12'000'000, 30'000'000), mark(31'000'000, 40'000'000)};
  marks.windows[1].label = 7;
  marks.windows[2].text_label = "warm";
  runner::ProcessRunInfo info;
  info.process_run = 3;
  info.first_index = 10;
  auto split = runner::split_windows(events, marks, info);
  ASSERT_EQ(split.windows.size(), 3u);
  EXPECT_TRUE(split.warnings.empty());
  const auto& w0 = split.windows[0];
  EXPECT_EQ(w0.index, 10);
  EXPECT_EQ(w0.window, 0);
  EXPECT_EQ(w0.process_run, 3);
  EXPECT_EQ(w0.wall_ns, 11'000'000u - 1000u);
  ASSERT_EQ(w0.noise.size(), 1u);
  EXPECT_EQ(w0.noise[0].source, "irq:local_timer");
  EXPECT_EQ(w0.noise[0].count, 2u);
  EXPECT_TRUE(w0.label.is_null());
  const auto& w1 = split.windows[1];
  EXPECT_EQ(w1.index, 11);
  ASSERT_NE(w1.find("preemption:hog"), nullptr);
  EXPECT_EQ(w1.find("preemption:hog")->time_ns, 6'000'000u);  // both CPUs
  EXPECT_EQ(w1.find("preemption:other"), nullptr);
  EXPECT_EQ(w1.label, 7);
  EXPECT_EQ(w1.stolen_ns(), 6'004'000u);
  const auto& w2 = split.windows[2];
  EXPECT_EQ(w2.blocking_ns, 700u);
  EXPECT_EQ(w2.migrations, 4u);
  EXPECT_EQ(w2.label, "warm");
  EXPECT_FALSE(w2.cpu_ns.has_value());  // whole-process figures are not per window
}

TEST(WindowSplit, AWindowsGapsAreNotItsWallTime) {
  probes::WindowReadout marks;
  marks.windows = {mark(1'000, 10'001'000), mark(20'000'000, 21'000'000), mark(30'000'000, 31'000'000)};
  marks.windows[0].paused_ns = 7'000'000;  // 3 ms timed in 10 ms
  marks.windows[0].pauses = 4;
  marks.windows[1].paused_ns = 5'000'000;  // more gap than span (never timed): no time, not wrapped
  marks.windows[1].pauses = 0;
  auto split = runner::split_windows({ev("irq:local_timer", 1, 3'000)}, marks, {});
  ASSERT_EQ(split.windows.size(), 3u);
  EXPECT_EQ(split.windows[0].wall_ns, 3'000'000u);
  EXPECT_EQ(split.windows[0].paused_ns, 7'000'000u);
  EXPECT_EQ(split.windows[0].pauses, 4u);
  EXPECT_EQ(split.windows[1].wall_ns, 0u);
  // A ->Threads(N) window: its gaps measured, in its time.
  marks.windows[2].paused_ns = 400'000;
  marks.windows[2].pauses = 2;
  marks.windows[2].paused_in_wall = true;
  auto shared = runner::split_windows({}, marks, {});
  EXPECT_EQ(shared.windows[2].wall_ns, 1'000'000u);
  EXPECT_TRUE(shared.windows[2].paused_in_wall);
  EXPECT_EQ(shared.windows[2].paused_ns, 400'000u);
  // A window whose timer was not followed (every mode but --windows gbench) has no such fields.
  EXPECT_EQ(split.windows[2].wall_ns, 1'000'000u);
  EXPECT_FALSE(split.windows[2].paused_ns);
  EXPECT_FALSE(split.windows[2].pauses);
}

TEST(WindowSplit, WarmupWindowsAndWarmupProcessRuns) {
  probes::WindowReadout marks;
  marks.windows = {mark(0, 10), mark(20, 30), mark(40, 50)};
  runner::ProcessRunInfo info;
  info.warmup_windows = 2;
  auto split = runner::split_windows({}, marks, info);
  ASSERT_EQ(split.windows.size(), 3u);
  EXPECT_TRUE(split.windows[0].warmup);
  EXPECT_TRUE(split.windows[1].warmup);
  EXPECT_FALSE(split.windows[2].warmup);
  info.warmup = true;
  info.warmup_windows = 0;
  for (const auto& w : runner::split_windows({}, marks, info).windows) EXPECT_TRUE(w.warmup);
}

// What the harness said of a window (--windows pyperf: its name, whether it only calibrated, the
// duration it timed) goes into the window's entry.
TEST(WindowSplit, HarnessLabelWarmupAndDurationCarryOver) {
  probes::WindowReadout marks;
  marks.windows = {mark(0, 100), mark(200, 300)};
  marks.windows[0].harness_warmup = true;
  for (auto& m : marks.windows) m.text_label = "timeit";
  marks.windows[1].harness_duration_ns = 60;
  auto split = runner::split_windows({}, marks, {});
  ASSERT_EQ(split.windows.size(), 2u);
  EXPECT_TRUE(split.windows[0].warmup);
  EXPECT_FALSE(split.windows[0].harness_duration_ns);
  EXPECT_FALSE(split.windows[1].warmup);
  EXPECT_EQ(split.windows[1].label, "timeit");
  EXPECT_EQ(split.windows[1].harness_duration_ns, 60u);
}

TEST(WindowSplit, UnclosedImplicitDroppedAndStrayAreSaid) {
  probes::WindowReadout marks;
  marks.windows = {mark(0, 10), mark(10, 20), mark(30, 0)};
  marks.windows[0].implicit_end = true;
  marks.dropped = 5;
  marks.stray_ends = 2;
  runner::ProcessRunInfo info;
  info.process_run = 1;
  auto split = runner::split_windows({ev("preemption:x", 3, 99)}, marks, info);
  ASSERT_EQ(split.windows.size(), 2u);  // the open one is left out
  ASSERT_EQ(split.warnings.size(), 4u);
  EXPECT_NE(split.warnings[0].find("process run 2: window 2 had no end marker when the process ended"),
            std::string::npos);
  EXPECT_NE(split.warnings[1].find("window 0 had no end marker: it ended at the next begin"), std::string::npos);
  EXPECT_NE(split.warnings[2].find("5 windows more"), std::string::npos);
  EXPECT_NE(split.warnings[3].find("2 end marker(s)"), std::string::npos);
}

TEST(WindowSplit, RecordWindowsFilesTheProcessRunToo) {
  RunRecord rec;
  RunSample process;
  process.index = 4;
  process.wall_ns = 100;
  process.user_ns = 50;
  probes::WindowReadout marks;
  marks.windows = {mark(0, 10), mark(20, 30)};
  EXPECT_EQ(runner::record_windows(rec, process, {}, marks, 0), 2u);
  ASSERT_EQ(rec.samples.size(), 2u);
  EXPECT_EQ(rec.samples[1].index, 1);
  EXPECT_EQ(rec.samples[1].process_run, 4);
  ASSERT_EQ(rec.process_runs.size(), 1u);
  EXPECT_EQ(rec.process_runs[0].user_ns, 50u);
  EXPECT_EQ(rec.process_runs[0].process_run, 4);
  EXPECT_EQ(runner::record_windows(rec, process, {}, probes::WindowReadout{}, 0), 0u);
  EXPECT_EQ(rec.samples.size(), 2u);
}

TEST(WindowLabel, IntegersStayIntegersTextStaysText) {
  probes::WindowMark m;
  EXPECT_TRUE(runner::window_label(m).is_null());
  m.text_label = "42";
  EXPECT_EQ(runner::window_label(m), 42);
  m.text_label = "-3";
  EXPECT_EQ(runner::window_label(m), -3);
  m.text_label = "4x";
  EXPECT_EQ(runner::window_label(m), "4x");
  m.label = 9;
  EXPECT_EQ(runner::window_label(m), 9);
}

TEST(MarkerLines, CountsWholeMarkerLinesAcrossReads) {
  std::string rest;
  EXPECT_EQ(runner::count_marker_lines(rest, "begin\nend\nbeg"), 2u);
  EXPECT_EQ(rest, "beg");
  EXPECT_EQ(runner::count_marker_lines(rest, "in 12\nend\r\n"), 2u);
  EXPECT_EQ(rest, "");
  EXPECT_EQ(runner::count_marker_lines(rest, "beginning\nhello\nend now\nbegin\n"), 1u);
  EXPECT_EQ(runner::count_marker_lines(rest, "end"), 0u);  // not finished yet
  EXPECT_EQ(runner::count_marker_lines(rest, "\n"), 1u);
}

TEST(WindowOptions, ThresholdDurations) {
  EXPECT_EQ(cli::parse_threshold_ns("10us"), 10'000u);
  EXPECT_EQ(cli::parse_threshold_ns("10µs"), 10'000u);
  EXPECT_EQ(cli::parse_threshold_ns("7"), 7'000u);
  EXPECT_EQ(cli::parse_threshold_ns("1.5ms"), 1'500'000u);
  EXPECT_EQ(cli::parse_threshold_ns("500ns"), 500u);
  for (const char* bad : {"", "fast", "10s", "-1us", "1e300ms", "nan"})
    EXPECT_THROW(cli::parse_threshold_ns(bad), Error) << bad;
}

TEST(WindowOptions, ContradictionsAreErrors) {
  runner::Plan p;
  using A = cli::WindowArgs;
  EXPECT_THROW(cli::apply_window_options(p, A{"", "", "", 2, "", ""}), Error);  // --warmup-windows alone
  EXPECT_THROW(cli::apply_window_options(p, A{"marks", "", "", -1, "", ""}), Error);
  EXPECT_THROW(cli::apply_window_options(p, A{"marks", "", "", std::nullopt, "", "5us"}), Error);  // threshold alone
  EXPECT_THROW(cli::apply_window_options(p, A{"marks", "", "", std::nullopt, "/nonexistent-dir/t.json", ""}), Error);
  EXPECT_THROW(cli::apply_window_options(p, A{"marks", "bench", "", std::nullopt, "", ""}), Error);  // two ways at once
  EXPECT_THROW(cli::apply_window_options(p, A{"", "/", "", std::nullopt, "", ""}), Error);           // no name
  EXPECT_THROW(cli::apply_window_options(p, A{"", "bench", "step", std::nullopt, "", ""}), Error);
  EXPECT_THROW(cli::apply_window_options(p, A{"hyperfin", "", "", std::nullopt, "", ""}), Error);  // no such harness
  EXPECT_THROW(cli::apply_window_options(p, A{"gbench", "", "step", std::nullopt, "", ""}), Error);
  runner::Plan gb;
  cli::apply_window_options(gb, A{"gbench", "", "", std::nullopt, "", ""});
  EXPECT_TRUE(gb.windows.on);
  EXPECT_EQ(gb.windows.harness, "gbench");
  runner::Plan at;
  cli::apply_window_options(at, A{"", "", "step@libfoo", 1, "", ""});
  EXPECT_TRUE(at.windows.on);
  EXPECT_EQ(at.windows.at, "step@libfoo");
  cli::apply_window_options(p, A{"marks", "", "", 3, "", ""});
  EXPECT_TRUE(p.windows.on);
  EXPECT_EQ(p.windows.warmup, 3);
  EXPECT_TRUE(p.timeline.empty());
  EXPECT_TRUE(p.windows.exec.empty());
}

TEST(WindowReadout, SlotsThatWereNotWindowsAreLeftOutAndNumberedAround) {
  probes::WindowReadout r;
  for (bool is_window : {true, false, true, false, false, true}) {
    probes::WindowMark m;
    m.begin_ns = r.windows.size();
    probes::add_window_slot(r, m, is_window);
  }
  ASSERT_EQ(r.windows.size(), 3u);
  EXPECT_EQ(r.windows[2].begin_ns, 2u);
  // Event keys are slot + 1 (0 outside): slots 1, 3 and 4 were forks that ran something else.
  const std::vector<uint32_t> want{0, 1, 0, 2, 0, 0, 3, 0};
  for (uint32_t key = 0; key < want.size(); ++key) EXPECT_EQ(r.window_of(key), want[key]) << key;
  probes::WindowReadout all;
  for (int k = 0; k < 3; ++k) probes::add_window_slot(all, {}, true);
  EXPECT_TRUE(all.slot_window.empty());
  EXPECT_EQ(all.window_of(3), 3u);  // every slot a window: keys as they are
}

TEST(WindowOptions, ExecWindowsTakeTheKernelsName) {
  runner::Plan p;
  cli::apply_window_options(p, cli::WindowArgs{"", "./build/bench", "", 2, "", ""});
  EXPECT_TRUE(p.windows.on);  // the window machinery, cut by execs
  EXPECT_EQ(p.windows.exec, "bench");
  EXPECT_EQ(p.windows.warmup, 2);
  EXPECT_EQ(cli::exec_window_comm("python3"), "python3");
  EXPECT_EQ(cli::exec_window_comm("/usr/bin/a_very_long_benchmark_name"), "a_very_long_ben");  // 15 bytes
  EXPECT_EQ(cli::exec_window_comm("dir/bench/"), "bench");
}

RunRecord windows_record() {
  RunRecord rec;
  rec.command = {"./bench"};
  rec.warmup_windows = 1;
  for (int k = 0; k < 3; ++k) {
    RunSample w;
    w.index = k;
    w.window = k;
    w.process_run = 0;
    w.warmup = k == 0;
    w.wall_ns = 1000 + uint64_t(k);
    w.blocking_ns = 3;
    w.migrations = 1;
    w.label = k == 1 ? nlohmann::json("step") : nlohmann::json(k);
    if (k == 2) w.harness_duration_ns = 900;  // --windows pyperf: pyperf's own duration of the run
    w.noise.push_back({"preemption:hog", 1, 400, 400, nullptr});
    rec.samples.push_back(w);
  }
  RunSample process;
  process.index = 0;
  process.process_run = 0;
  process.wall_ns = 5000;
  process.user_ns = 4000;
  process.cpu_ns = 4100;
  process.exit_status = 0;
  rec.process_runs.push_back(process);
  rec.summary = summarize(rec);
  return rec;
}

TEST(WindowRecord, WindowEntriesLeaveOutWholeProcessFigures) {
  auto j = to_json(windows_record());
  const auto& w = j["runs"][1];
  EXPECT_EQ(w["window"], 1);
  EXPECT_EQ(w["process_run"], 0);
  EXPECT_EQ(w["label"], "step");
  EXPECT_EQ(w["wall_ns"], 1001);
  EXPECT_EQ(w["blocking_ns"], 3);
  EXPECT_FALSE(w.contains("harness_duration_ns"));
  EXPECT_EQ(j["runs"][2]["harness_duration_ns"], 900);
  for (const char* absent :
       {"user_ns", "sys_ns", "steal_ns", "cpu_ns", "cpu_irq_ns", "voluntary_switches", "involuntary_switches",
        "minor_faults", "major_faults", "exit_status", "signal", "counters", "mean_khz", "probe_switches"})
    EXPECT_FALSE(w.contains(absent)) << absent;
  EXPECT_EQ(j["warmup_windows"], 1);
  ASSERT_EQ(j["process_runs"].size(), 1u);
  EXPECT_EQ(j["process_runs"][0]["user_ns"], 4000);
  EXPECT_EQ(j["process_runs"][0]["process_run"], 0);
  EXPECT_FALSE(j["process_runs"][0].contains("window"));
}

TEST(WindowRecord, RoundTrips) {
  auto rec = windows_record();
  auto back = run_record_from_json(to_json(rec));
  ASSERT_EQ(back.samples.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(back.samples[k].window, rec.samples[k].window);
    EXPECT_EQ(back.samples[k].process_run, 0);
    EXPECT_EQ(back.samples[k].label, rec.samples[k].label);
    EXPECT_EQ(back.samples[k].wall_ns, rec.samples[k].wall_ns);
    EXPECT_EQ(back.samples[k].warmup, rec.samples[k].warmup);
    EXPECT_EQ(back.samples[k].harness_duration_ns, rec.samples[k].harness_duration_ns);
  }
  EXPECT_EQ(back.samples[2].harness_duration_ns, 900u);
  EXPECT_EQ(back.warmup_windows, 1);
  ASSERT_EQ(back.process_runs.size(), 1u);
  EXPECT_EQ(back.process_runs[0].cpu_ns, 4100u);
  EXPECT_EQ(back.summary.runs, 2);  // the warm-up window is not measured
  EXPECT_EQ(to_json(back), to_json(rec));
}

TEST(WindowRecord, PausedTimeRoundTripsWhereItWasMeasured) {
  auto rec = windows_record();
  rec.samples[1].paused_ns = 2'500;
  rec.samples[1].pauses = 3;
  rec.samples[2].paused_ns = 100;
  rec.samples[2].pauses = 1;
  rec.samples[2].paused_in_wall = true;
  const auto j = to_json(rec);
  EXPECT_FALSE(j["runs"][1].contains("paused_in_wall"));
  EXPECT_EQ(j["runs"][2]["paused_in_wall"], true);
  EXPECT_EQ(j["runs"][1]["paused_ns"], 2'500);
  EXPECT_EQ(j["runs"][1]["pauses"], 3);
  EXPECT_FALSE(j["runs"][0].contains("paused_ns"));
  EXPECT_FALSE(j["runs"][0].contains("pauses"));
  EXPECT_FALSE(j["process_runs"][0].contains("paused_ns"));
  auto back = run_record_from_json(j);
  EXPECT_EQ(back.samples[1].paused_ns, 2'500u);
  EXPECT_EQ(back.samples[1].pauses, 3u);
  EXPECT_FALSE(back.samples[0].paused_ns);
  EXPECT_TRUE(back.samples[2].paused_in_wall);
  EXPECT_EQ(to_json(back), j);
  auto bad = j;
  bad["runs"][1]["paused_ns"] = "long";
  EXPECT_THROW(run_record_from_json(bad), std::runtime_error);
}

TEST(WindowRecord, BadWindowFieldsAreErrors) {
  auto j = to_json(windows_record());
  j["runs"][0]["window"] = -1;
  EXPECT_THROW(run_record_from_json(j), std::runtime_error);
  j = to_json(windows_record());
  j["process_runs"] = "no";
  EXPECT_THROW(run_record_from_json(j), std::runtime_error);
}

}  // namespace
}  // namespace nw

namespace nw {
namespace {

TEST(WindowAdvice, NoisewatchCommandsKeepWindowsAndCountProcessRuns) {
  RunRecord rec;
  rec.warmup_windows = 0;
  for (int pr = 0; pr < 2; ++pr)
    for (int k = 0; k < 10; ++k) {
      RunSample w;
      w.window = k;
      w.process_run = pr;
      w.wall_ns = 10;
      rec.samples.push_back(w);
    }
  std::vector<Recommendation> recs = {
      {"more-runs", "Measure more runs", {"noisewatch --runs 95 -- ./b"}, {}, false, "", 0},
      {"more-warmup",
       "Add warm-up runs: the first measured run was slow",
       {"noisewatch --warmup 3 -- ./b"},
       {},
       false,
       "",
       0},
      {"quiet-cpu",
       "Look for a quieter CPU",
       {"noisewatch check --duration 10", "noisewatch --cpu 3 -- ./b"},
       {},
       false,
       "",
       0}};
  report::adapt_to_windows(rec, recs);
  EXPECT_EQ(recs[0].commands[0], "noisewatch --windows --runs 10 -- ./b");  // 95 windows at 10 a process
  EXPECT_EQ(recs[1].commands[0], "noisewatch --windows --warmup-windows 3 -- ./b");
  EXPECT_EQ(recs[1].title, "Add warm-up windows: the first measured window was slow");
  EXPECT_EQ(recs[2].commands[0], "noisewatch check --duration 10");
  EXPECT_EQ(recs[2].commands[1], "noisewatch --windows --cpu 3 -- ./b");
  // The benchmark's own options are its own; an exec-windows record cuts its windows again so.
  rec.windows_exec = "bench";
  std::vector<Recommendation> harness = {{"more-runs",
                                          "Measure more runs",
                                          {"noisewatch --runs 95 -- hyperfine -N --runs 20 --warmup 2 ./bench"},
                                          {},
                                          false,
                                          "",
                                          0}};
  report::adapt_to_windows(rec, harness);
  EXPECT_EQ(harness[0].commands[0],
            "noisewatch --windows-exec bench --runs 10 -- hyperfine -N --runs 20 --warmup 2 ./bench");
  // Google Benchmark's repetitions are cut again by --windows gbench.
  rec.windows_exec.reset();
  rec.windows_harness = WindowsHarness{.name = "gbench"};
  std::vector<Recommendation> gbench = {{"more-runs",
                                         "Measure more runs",
                                         {"noisewatch --runs 95 -- ./bm --benchmark_repetitions=10"},
                                         {},
                                         false,
                                         "",
                                         0}};
  report::adapt_to_windows(rec, gbench);
  EXPECT_EQ(gbench[0].commands[0], "noisewatch --windows gbench --runs 10 -- ./bm --benchmark_repetitions=10");
  // A record of process runs is left alone.
  RunRecord plain;
  plain.samples.resize(3);
  auto before = recs;
  report::adapt_to_windows(plain, recs);
  EXPECT_EQ(recs[0].commands, before[0].commands);
}

}  // namespace
}  // namespace nw
