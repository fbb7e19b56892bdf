// SPDX-License-Identifier: Apache-2.0
// --windows pyperf: finding pyperf's JSON output in the command, reading its runs, the runs one
// process run added, and naming the worker windows after them. tests/data/pyperf/ holds outputs of
// the real pyperf (provenance in its README).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/errors.h"
#include "common/files.h"
#include "runner/pyperf_windows.h"

namespace nw {
namespace {

using runner::PyperfRun;

std::string data(const std::string& name) { return std::string(NW_SOURCE_DIR) + "/tests/data/pyperf/" + name; }

std::vector<PyperfRun> runs_of(const std::string& name) { return runner::read_pyperf_runs(data(name)).value(); }

probes::WindowMark worker(uint64_t ns) {
  probes::WindowMark m;
  m.begin_ns = 1'000;
  m.end_ns = m.begin_ns + ns;
  m.text_label = "python3";
  return m;
}

TEST(PyperfOutput, EveryWayArgparseTakesTheOptionAndTheLastOneWins) {
  using V = std::vector<std::string>;
  auto out = [](V cmd) { return runner::pyperf_output_in_command(cmd); };
  EXPECT_FALSE(out({"python3", "-m", "pyperf", "timeit", "1+1"}));
  EXPECT_EQ(out({"python3", "-m", "pyperf", "timeit", "-o", "a.json", "1+1"})->path, "a.json");
  EXPECT_EQ(out({"python3", "bench.py", "-oa.json"})->path, "a.json");
  EXPECT_EQ(out({"python3", "bench.py", "--output", "a.json"})->option, "--output");
  EXPECT_EQ(out({"python3", "bench.py", "--output=a.json"})->path, "a.json");
  auto a = out({"python3", "bench.py", "--append=b.json.gz"});
  EXPECT_TRUE(a->append);
  EXPECT_EQ(a->path, "b.json.gz");
  EXPECT_EQ(a->option, "--append");
  EXPECT_EQ(out({"python3", "bench.py", "--append", "b.json", "-o", "c.json"})->path, "c.json");
  EXPECT_FALSE(out({"python3", "bench.py", "-o"}));  // argparse's error, not a file
}

// pyperf timeit -p 2 without -l: a first worker calibrates the loops (warm-ups only), then two
// measure; one benchmark, so its name and shared metadata are the file's.
TEST(PyperfRuns, CalibrationRunsAndMetadataFromEveryLevel) {
  auto runs = runs_of("calibrated.json");
  ASSERT_EQ(runs.size(), 3u);
  for (const auto& r : runs) {
    EXPECT_EQ(r.benchmark, "timeit");
    ASSERT_TRUE(r.duration_ns);
    EXPECT_GT(*r.duration_ns, 10'000'000u);
    EXPECT_FALSE(r.date.empty());
  }
  EXPECT_TRUE(runs[0].calibration);
  EXPECT_FALSE(runs[1].calibration);
  EXPECT_FALSE(runs[2].calibration);
  EXPECT_EQ(*runs[0].duration_ns, 829'459'891u);  // 0.8294598909997148 s
}

// The same file after `--append` of two more runs of timeit and one run of a benchmark "other":
// the new benchmark's single run has its date and duration moved up to the benchmark.
TEST(PyperfRuns, OnlyTheAppendedRunsInTheOrderTheyRan) {
  auto before = runs_of("calibrated.json");
  auto after = runs_of("appended.json");
  ASSERT_EQ(after.size(), 6u);
  EXPECT_EQ(after[5].benchmark, "other");
  ASSERT_TRUE(after[5].duration_ns);
  EXPECT_FALSE(after[5].date.empty());
  auto added = runner::pyperf_new_runs(before, after);
  ASSERT_EQ(added.size(), 3u);
  EXPECT_EQ(added[0].benchmark, "timeit");
  EXPECT_EQ(added[1].benchmark, "timeit");
  EXPECT_EQ(added[2].benchmark, "other");
  EXPECT_FALSE(added[0].calibration);
  EXPECT_EQ(*added[0].duration_ns, 40'400'622u);
  // No file before: every run is new, the calibration first.
  EXPECT_EQ(runner::pyperf_new_runs({}, before).size(), 3u);
}

// A benchmark earlier in the file that ran later (an --append to a file whose first benchmark is
// run again): the dates, not the file's order, are the workers' order.
TEST(PyperfRuns, DatesOrderRunsAcrossBenchmarks) {
  std::vector<PyperfRun> after = {{"a", false, 1, "2026-12-04 10:00:00.000000"},
                                  {"a", false, 2, "2026-12-04 10:00:03.000000"},
                                  {"b", false, 3, "2026-12-04 10:00:01.000000"},
                                  {"b", false, 4, "2026-12-04 10:00:02.000000"}};
  auto added = runner::pyperf_new_runs({after[0]}, after);
  ASSERT_EQ(added.size(), 3u);
  EXPECT_EQ(*added[0].duration_ns, 3u);
  EXPECT_EQ(*added[1].duration_ns, 4u);
  EXPECT_EQ(*added[2].duration_ns, 2u);
  // Without dates on every run, the file's order.
  after[3].date.clear();
  added = runner::pyperf_new_runs({after[0]}, after);
  EXPECT_EQ(*added[0].duration_ns, 2u);
}

TEST(PyperfRuns, WhatIsNotPyperfJsonIsAnError) {
  EXPECT_THROW(runner::pyperf_runs(nlohmann::json::parse(R"({"benchmarks": 1})")), Error);
  EXPECT_THROW(runner::pyperf_runs(nlohmann::json::parse(R"({"benchmarks": [{"runs": [{}]}]})")), Error);  // no name
  EXPECT_THROW(runner::pyperf_runs(nlohmann::json::parse(R"({"context": {}, "benchmarks": [{"name": "BM_x"}]})")),
               Error);
  EXPECT_FALSE(runner::read_pyperf_runs(data("does-not-exist.json")));
}

TEST(PyperfWindows, EachWorkerTakesItsRunInOrder) {
  std::vector<probes::WindowMark> w = {worker(900'000'000), worker(800'000'000), worker(750'000'000)};
  auto runs = runs_of("calibrated.json");
  ASSERT_TRUE(runner::name_pyperf_windows(w, runs));
  for (size_t k = 0; k < w.size(); ++k) {
    EXPECT_EQ(w[k].text_label, "timeit");
    EXPECT_EQ(w[k].harness_duration_ns, runs[k].duration_ns);
  }
  EXPECT_TRUE(w[0].harness_warmup);  // the calibration worker
  EXPECT_FALSE(w[1].harness_warmup);
  // One window too many: nothing is named.
  std::vector<probes::WindowMark> more = {worker(1), worker(1), worker(1), worker(1)};
  EXPECT_FALSE(runner::name_pyperf_windows(more, runs));
  for (const auto& m : more) {
    EXPECT_EQ(m.text_label, "python3");
    EXPECT_FALSE(m.harness_duration_ns);
  }
}

TEST(PyperfNaming, WarnsAndKeepsTheWindowsWhenItCannotPair) {
  std::vector<std::string> warnings;
  std::vector<probes::WindowMark> w = {worker(1'000'000'000)};
  runner::PyperfNaming none({"python3", "bench.py"});
  none.before();
  none.name(w, warnings, 0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("-o FILE"), std::string::npos) << warnings[0];
  EXPECT_EQ(w[0].text_label, "python3");

  const std::string path = "/tmp/nw-pyperf-naming-" + std::to_string(getpid()) + ".json";
  std::filesystem::remove(path);
  runner::PyperfNaming out({"python3", "bench.py", "-o", path});
  out.before();
  warnings.clear();
  out.name(w, warnings, 1);  // pyperf wrote nothing
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("process run 2"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("did not write it"), std::string::npos) << warnings[0];

  std::filesystem::copy_file(data("calibrated.json"), path);  // three runs for one window
  warnings.clear();
  out.name(w, warnings, 0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("added 3 run(s)"), std::string::npos) << warnings[0];
  EXPECT_EQ(w[0].text_label, "python3");

  std::ofstream(path) << "{not json";
  warnings.clear();
  out.name(w, warnings, 0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(w[0].text_label, "python3");
  std::filesystem::remove(path);
}

TEST(PyperfNaming, AppendPairsOnlyTheNewRuns) {
  const std::string path = "/tmp/nw-pyperf-append-" + std::to_string(getpid()) + ".json";
  std::filesystem::remove(path);
  std::filesystem::copy_file(data("calibrated.json"), path);
  runner::PyperfNaming out({"python3", "-m", "pyperf", "timeit", "--append", path, "1+1"});
  out.before();
  std::filesystem::copy_file(data("appended.json"), path, std::filesystem::copy_options::overwrite_existing);
  std::vector<probes::WindowMark> w = {worker(100'000'000), worker(100'000'000), worker(100'000'000)};
  std::vector<std::string> warnings;
  out.name(w, warnings, 0);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  EXPECT_EQ(w[0].text_label, "timeit");
  EXPECT_EQ(w[2].text_label, "other");
  EXPECT_EQ(w[0].harness_duration_ns, 40'400'622u);
  // A window shorter than pyperf's own duration inside it: the pairing is suspect, and said so.
  std::filesystem::copy_file(data("calibrated.json"), path, std::filesystem::copy_options::overwrite_existing);
  out.before();
  std::filesystem::copy_file(data("appended.json"), path, std::filesystem::copy_options::overwrite_existing);
  w = {worker(1'000), worker(100'000'000), worker(100'000'000)};
  warnings.clear();
  out.name(w, warnings, 0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("1 of the 3 worker windows are shorter"), std::string::npos) << warnings[0];
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace nw
