// SPDX-License-Identifier: Apache-2.0
// --windows gbench: reading Google Benchmark's JSON output and naming the windows of a process run
// after the repetitions it reported. tests/data/gbench/ holds outputs of real runs (provenance in
// its README).
#include <gtest/gtest.h>

#include "common/errors.h"
#include "common/files.h"
#include "compare/input.h"
#include "runner/gbench_windows.h"

namespace nw {
namespace {

// A State's window: by default 1 us per iteration.
probes::WindowMark state(int64_t iterations, uint64_t ns = 0) {
  probes::WindowMark m;
  m.begin_ns = 1'000;
  m.end_ns = m.begin_ns + (ns ? ns : uint64_t(iterations) * 1'000);
  m.label = iterations;
  return m;
}

// A reported repetition that took 1 us per iteration (or `ns`).
runner::GbenchRun rep(const std::string& name, int64_t iterations, int threads = 1, double ns = 0) {
  return {name, iterations, threads, ns ? ns : double(iterations) * 1'000 / threads};
}

std::vector<probes::WindowMark> states(std::initializer_list<int64_t> counts) {
  std::vector<probes::WindowMark> w;
  for (auto c : counts) w.push_back(state(c));
  return w;
}

std::vector<std::string> names(const std::vector<probes::WindowMark>& w) {
  std::vector<std::string> out;
  for (const auto& m : w) out.push_back(m.harness_warmup ? "-" : m.text_label);
  return out;
}

TEST(GbenchRuns, IterationRunsInOrderWithoutAggregatesOrErrors) {
  const auto j =
      nlohmann::json::parse(read_file(std::string(NW_SOURCE_DIR) + "/tests/data/gbench/repetitions-1.7.1.json"));
  auto runs = runner::gbench_runs(j);
  ASSERT_EQ(runs.size(), 6u);  // 2 benchmarks x 3 repetitions; 8 aggregates left out
  EXPECT_EQ(runs[0].name, "BM_spin/1");
  EXPECT_EQ(runs[0].iterations, 100000);
  EXPECT_EQ(runs[5].name, "BM_spin/2");
  EXPECT_EQ(runs[5].iterations, 189729);
  EXPECT_GT(runs[0].timed_ns, 0.5e6);  // real_time (ns per iteration) x iterations
  nlohmann::json err = {{"benchmarks",
                         {{{"name", "BM_a"}, {"run_type", "iteration"}, {"iterations", 5}},
                          {{"name", "BM_b"}, {"run_type", "iteration"}, {"iterations", 0}, {"error_occurred", true}},
                          {{"name", "BM_t/threads:2"}, {"run_type", "iteration"}, {"iterations", 8}, {"threads", 2}}}}};
  runs = runner::gbench_runs(err);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].threads, 2);
  EXPECT_THROW(runner::gbench_runs(nlohmann::json::object()), Error);
  EXPECT_THROW(runner::gbench_runs(nlohmann::json::parse("[1]")), Error);
}

TEST(GbenchNames, SearchTrialsAreWarmupsRepetitionsTakeTheirNames) {
  // BM_a: search 1, 10, 100 then 3 repetitions of 1000; BM_b: search 1, 10, then 2 of 50.
  auto w = states({1, 10, 100, 1000, 1000, 1000, 1, 10, 50, 50});
  std::vector<runner::GbenchRun> runs = {rep("BM_a", 1000), rep("BM_a", 1000), rep("BM_a", 1000), rep("BM_b", 50),
                                         rep("BM_b", 50)};
  EXPECT_EQ(runner::name_gbench_windows(w, runs), 0u);
  EXPECT_EQ(names(w), (std::vector<std::string>{"-", "-", "-", "BM_a", "BM_a", "BM_a", "-", "-", "BM_b", "BM_b"}));
  EXPECT_FALSE(w[3].label);  // the name replaces the count
}

TEST(GbenchNames, AWarmupWithTheRepetitionsCountIsNotTakenForOne) {
  // --benchmark_min_warmup_time: warm-up 1, 10, 100, 1000 (the repetition's count; cold, slower),
  // then the search 1, 10, 100, 1000 whose last is the one reported: the duration tells them apart.
  auto w = states({1, 10, 100, 1000, 1, 10, 100, 1000});
  w[3] = state(1000, 1'400'000);
  EXPECT_EQ(runner::name_gbench_windows(w, {rep("BM_w", 1000, 1, 1'010'000)}), 0u);
  EXPECT_EQ(names(w), (std::vector<std::string>{"-", "-", "-", "-", "-", "-", "-", "BM_w"}));
  // Two benchmarks with one count: each takes its own, the first leaving room for the second.
  auto same = states({1, 10, 100, 1, 10, 100});
  EXPECT_EQ(runner::name_gbench_windows(same, {rep("BM_x", 100), rep("BM_y", 100)}), 0u);
  EXPECT_EQ(names(same), (std::vector<std::string>{"-", "-", "BM_x", "-", "-", "BM_y"}));
  // The next benchmark's search passing through this one's count, at equal durations: the earliest.
  auto through = states({1, 10, 100, 1, 10, 100, 1000});
  EXPECT_EQ(runner::name_gbench_windows(through, {rep("BM_x", 100), rep("BM_y", 1000)}), 0u);
  EXPECT_EQ(names(through), (std::vector<std::string>{"-", "-", "BM_x", "-", "-", "-", "BM_y"}));
}

TEST(GbenchNames, ThreadsMultiplyTheCountAndMissingRunsAreCounted) {
  auto w = states({10, 400});  // one shared window per repetition: each thread's count
  EXPECT_EQ(runner::name_gbench_windows(w, {rep("BM_t/threads:2", 800, 2), rep("BM_gone", 7)}), 1u);
  EXPECT_EQ(names(w), (std::vector<std::string>{"-", "BM_t/threads:2"}));
  auto unlabelled = states({1});
  unlabelled[0].label.reset();
  EXPECT_EQ(runner::name_gbench_windows(unlabelled, {rep("BM_a", 1)}), 1u);
  EXPECT_TRUE(unlabelled[0].harness_warmup);
}

TEST(GbenchRuns, ThreadsTimeIsTheMeanThreadsNotDividedAgain) {
  // 1.7.1 sums its threads' timers, divides by the threads, then real_time by all the iterations:
  // real_time x iterations is one (mean) thread's time.
  nlohmann::json j = {{"benchmarks",
                       {{{"name", "BM_t/threads:2"},
                         {"run_type", "iteration"},
                         {"iterations", 8},
                         {"threads", 2},
                         {"real_time", 1.5},
                         {"time_unit", "us"}}}}};
  const auto runs = runner::gbench_runs(j);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].timed_ns, 12'000);
}

TEST(GbenchNames, ATimedWindowIsMatchedByItsTimeLessItsGaps) {
  // Two States of the reported count: one 1 ms long with 3 ms of paused set-up around it, one 2 ms
  // long without gaps. The library timed 1 ms: the one whose gaps leave that is the repetition.
  auto w = states({100, 100});
  w[0] = state(100, 4'000'000);
  w[0].paused_ns = 3'000'000;
  w[0].pauses = 100;
  w[1] = state(100, 2'000'000);
  w[1].paused_ns = 0;
  EXPECT_EQ(w[0].timed_ns(), 1'000'000u);
  EXPECT_EQ(runner::name_gbench_windows(w, {rep("BM_p", 100, 1, 1'000'000)}), 0u);
  EXPECT_EQ(names(w), (std::vector<std::string>{"BM_p", "-"}));
}

TEST(GbenchOutput, TheCommandsOwnFileMustBeJson) {
  EXPECT_FALSE(runner::gbench_out_in_command({"./bm", "--benchmark_repetitions=3"}));
  EXPECT_EQ(runner::gbench_out_in_command({"./bm", "--benchmark_out=r.json"}), "r.json");
  EXPECT_EQ(runner::gbench_out_in_command({"./bm", "-benchmark_out=r.json", "--benchmark_out_format=json"}), "r.json");
  EXPECT_THROW(runner::gbench_out_in_command({"./bm", "--benchmark_out=r.csv", "--benchmark_out_format=csv"}), Error);
  // The console format alone is not the output file's.
  EXPECT_FALSE(runner::gbench_out_in_command({"./bm", "--benchmark_format=json"}));
}

TEST(GbenchCompare, ARecordOfGbenchWindowsHasTheLibrarysNames) {
  // The record of a --windows gbench run: its windows labelled as the library named them.
  nlohmann::json rec = {{"schema", "noisewatch.run/1"},
                        {"command", {"./bm"}},
                        {"windows_harness", {{"name", "gbench"}}},
                        {"warmup_windows", 0},
                        {"runs", nlohmann::json::array()}};
  for (int k = 0; k < 6; ++k)
    rec["runs"].push_back({{"index", k},
                           {"warmup", false},
                           {"window", k},
                           {"process_run", 0},
                           {"wall_ns", 1'000'000 + 1000 * k},
                           {"label", k < 3 ? "BM_spin/1" : "BM_spin/2"},
                           {"noise", nlohmann::json::array()}});
  const auto mine = compare::parse_input(rec, "r.json");
  ASSERT_EQ(mine.benchmarks.size(), 2u);
  EXPECT_EQ(mine.benchmarks[0].name, "BM_spin/1");
  EXPECT_EQ(mine.benchmarks[1].times_ns.size(), 3u);
  ASSERT_TRUE(mine.benchmarks[1].record);
  EXPECT_EQ(mine.benchmarks[1].record->measured().size(), 3u);  // its noise: its own windows'
  const auto theirs = compare::parse_input(
      nlohmann::json::parse(read_file(std::string(NW_SOURCE_DIR) + "/tests/data/gbench/repetitions-1.7.1.json")),
      "gb.json");
  ASSERT_EQ(theirs.benchmarks.size(), 2u);
  EXPECT_EQ(theirs.benchmarks[0].name, mine.benchmarks[0].name);
  EXPECT_EQ(theirs.benchmarks[1].name, mine.benchmarks[1].name);
  // Without the harness, a record is one benchmark named by its command, as before.
  rec.erase("windows_harness");
  EXPECT_EQ(compare::parse_input(rec, "r.json").benchmarks.size(), 1u);
}

}  // namespace
}  // namespace nw
