// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of --windows gbench with benchmarks that stop the library's timer
// (tests/workloads/gbench/nw_gbench_pause.cpp, against Debian's libbenchmark): a window is only
// what the library times, its paused set-up left out of its time and of its noise; ->Threads(2),
// UseRealTime and UseManualTime benchmarks get their windows too.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/conservation.h"
#include "support/gbench_helpers.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

// The library's figure within 1 % + 0.2 ms (the uprobes' traps around its clock reads).
double tolerance(double timed) { return 0.01 * timed + 200'000; }

class GbenchPauseE2E : public ::testing::Test {
 protected:
  // One run of every benchmark of the workload, shared by the tests below (a few seconds).
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(bin("nw_gbench_pause"))) return;
    json_ = new std::string(temp_path("gbench-pause.json"));
    out_ = new std::string(temp_path("gbench-pause-out.json"));
    proc_ = new Proc(run({noisewatch(), "--cpu", "1", "--json", *json_, "--windows", "gbench", "--",
                          bin("nw_gbench_pause"), "--benchmark_out=" + *out_}));
  }
  static void TearDownTestSuite() {
    if (json_) std::filesystem::remove(*json_), std::filesystem::remove(*out_);
    delete json_, delete out_, delete proc_;
    json_ = out_ = nullptr;
    proc_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(proc_) << "nw_gbench_pause was not built: install libbenchmark-dev (scripts/install-deps.sh test) "
                          "and build again";
    ASSERT_EQ(proc_->status, 0) << proc_->err;
    rec_ = load_json(*json_);
    reps_ = gbench_repetitions(load_json(*out_));
    windows_ = measured(rec_);
    ASSERT_EQ(reps_.size(), 9u);  // set_insert x 3, its threads x 2, real time x 2, manual time x 2
    ASSERT_EQ(windows_.size(), reps_.size()) << rec_["warnings"].dump();
  }
  // The measured windows and the library's repetitions of the benchmarks whose name starts so.
  std::vector<std::pair<nlohmann::json, nlohmann::json>> of(const std::string& prefix) const {
    std::vector<std::pair<nlohmann::json, nlohmann::json>> out;
    for (size_t i = 0; i < reps_.size(); ++i)
      if (reps_[i]["name"].get<std::string>().starts_with(prefix)) out.emplace_back(windows_[i], reps_[i]);
    return out;
  }

  static std::string *json_, *out_;
  static Proc* proc_;
  nlohmann::json rec_;
  std::vector<nlohmann::json> reps_, windows_;
};

std::string *GbenchPauseE2E::json_ = nullptr, *GbenchPauseE2E::out_ = nullptr;
Proc* GbenchPauseE2E::proc_ = nullptr;

TEST_F(GbenchPauseE2E, PausedSetUpIsNotInTheWindow) {
  const auto reps = of("BM_set_insert/");
  ASSERT_EQ(reps.size(), 3u);
  for (const auto& [w, rep] : reps) {
    SCOPED_TRACE(w.dump() + "\n" + rep.dump());
    EXPECT_EQ(w["label"], rep["name"]);
    const double wall = w["wall_ns"].get<double>(), timed = gbench_total_ns(rep);
    EXPECT_NEAR(wall, timed, tolerance(timed));
    // One gap per iteration: the benchmark's PauseTiming()...ResumeTiming(); the library's own stop
    // and start around the loop are the window's ends, not gaps.
    ASSERT_TRUE(w.contains("paused_ns") && w.contains("pauses"));
    EXPECT_EQ(w["pauses"], rep["iterations"]);
    // The set-up is most of the repetition: the window from its first start to its end, gaps
    // included (what it was before they were cut out), would be far off the library's figure.
    const double span = wall + w["paused_ns"].get<double>();
    EXPECT_GT(w["paused_ns"].get<double>(), timed);
    EXPECT_GT(span - timed, 10 * tolerance(timed));
  }
}

TEST_F(GbenchPauseE2E, UnpausedBenchmarksHaveNoGapsAndRealTimeIsTheWindow) {
  const auto reps = of("BM_real_time/");
  ASSERT_EQ(reps.size(), 2u);
  for (const auto& [w, rep] : reps) {
    SCOPED_TRACE(w.dump() + "\n" + rep.dump());
    EXPECT_EQ(w["label"], rep["name"]);
    const double timed = gbench_total_ns(rep);
    EXPECT_NEAR(w["wall_ns"].get<double>(), timed, tolerance(timed));
    EXPECT_EQ(w["pauses"], 0);
    EXPECT_EQ(w["paused_ns"], 0);
  }
}

TEST_F(GbenchPauseE2E, ManualTimeIsTheBenchmarksFigureTheWindowIsTheTimers) {
  // It reports 50 us per iteration whatever its iterations take (a spin of at least 150 us of CPU):
  // the window is still the time the timer ran, so it is not expected to match.
  const auto reps = of("BM_manual_time/");
  ASSERT_EQ(reps.size(), 2u);
  for (const auto& [w, rep] : reps) {
    SCOPED_TRACE(w.dump() + "\n" + rep.dump());
    EXPECT_EQ(w["label"], rep["name"]);
    EXPECT_NEAR(gbench_total_ns(rep), 300 * 50e3, 1);
    EXPECT_GT(w["wall_ns"].get<double>(), 2 * gbench_total_ns(rep));
    EXPECT_EQ(w["pauses"], 0);
  }
}

TEST_F(GbenchPauseE2E, ThreadsShareAWindowThatMeasuresItsOpenersGaps) {
  // Each of the two threads pauses for its own set-up. The window's gaps are its opener's pauses,
  // measured but kept in its time (paused_in_wall): the other thread runs on through them, and its
  // waits for the opener's set-up would otherwise be charged to the window beyond its time (they
  // were: contention 242 ms in a 156 ms window). Its time less its gaps is the opener's timer; the
  // library reports the mean of both threads' timers, which on one CPU differ by up to ~20 %.
  const auto reps = of("BM_set_insert_threads/");
  ASSERT_EQ(reps.size(), 2u);
  for (const auto& [w, rep] : reps) {
    SCOPED_TRACE(w.dump() + "\n" + rep.dump());
    EXPECT_EQ(w["label"], rep["name"]);
    EXPECT_EQ(w["paused_in_wall"], true);
    EXPECT_EQ(w["pauses"], rep["iterations"].get<int>() / 2);  // the opener's iterations
    const double timed = gbench_total_ns(rep), opener = w["wall_ns"].get<double>() - w["paused_ns"].get<double>();
    EXPECT_NEAR(opener, timed, 0.25 * timed + 1e6);
    EXPECT_GT(w["paused_ns"].get<double>(), 0.5 * timed);
  }
}

TEST_F(GbenchPauseE2E, TimeIsConservedInEveryWindow) {
  // Not one thread throughout (BM_set_insert_threads): each window on its own.
  for (const auto& w : rec_["runs"]) {
    nlohmann::json one = rec_;
    one["runs"] = nlohmann::json::array({w});
    const bool threads = w["label"].is_string() && w["label"].get<std::string>().starts_with("BM_set_insert_threads");
    test::expect_windows_conserved(one, !threads);
  }
}

TEST(GbenchPauseHogE2E, AHogDuringPausedSetUpIsNotChargedToTheWindow) {
  if (!std::filesystem::exists(bin("nw_gbench_pause"))) GTEST_SKIP() << "nw_gbench_pause was not built";
  // A hog on the benchmark's CPU all along: it takes about half of every span, set-up included.
  // The window is charged its share of the timed spans only, never more than their time; with the
  // set-up's share it would be charged more than its whole time.
  const std::string json = temp_path("gbench-pause-hog.json"), out = temp_path("gbench-pause-hog-out.json");
  const pid_t hog = spawn({bin("nw_hog"), "60", "1"}, "/dev/null", "/dev/null");
  Proc p = run({noisewatch(), "--cpu", "1", "--json", json, "--windows", "gbench", "--", bin("nw_gbench_pause"),
                "--benchmark_filter=BM_set_insert/", "--benchmark_out=" + out});
  kill(hog, SIGKILL);
  waitpid(hog, nullptr, 0);
  ASSERT_EQ(p.status, 0) << p.err;
  const auto rec = load_json(json);
  const auto reps = gbench_repetitions(load_json(out));
  const auto windows = measured(rec);
  ASSERT_EQ(reps.size(), 3u);
  ASSERT_EQ(windows.size(), 3u) << rec["warnings"].dump();
  double in_windows = 0, paused = 0;
  for (size_t i = 0; i < reps.size(); ++i) {
    const auto& w = windows[i];
    SCOPED_TRACE(w.dump() + "\n" + reps[i].dump());
    const double wall = w["wall_ns"].get<double>(), timed = gbench_total_ns(reps[i]);
    // Plus up to three of the hog's slices: it may take the CPU between the library's clock read
    // and the probe's trap at some of the 400 edges (CI: 4.0 ms of a 4.5 ms slice once; on a VM
    // whose uprobe traps are dear, 12.2 ms with slices of at most 5.1 ms).
    const double slice = double(run_source_field(w, "preemption:nw_hog", "max_ns"));
    EXPECT_NEAR(wall, timed, tolerance(timed) + 3 * slice);
    const double hog_ns = double(run_source_time(w, "preemption:nw_hog"));
    EXPECT_GT(hog_ns, 0.2 * wall);  // it did strike the timed spans
    EXPECT_LE(hog_ns, wall);
    EXPECT_GT(w["paused_ns"].get<double>(), wall);
    in_windows += hog_ns;
    paused += w["paused_ns"].get<double>();
  }
  // What it took during the gaps is the process run's only: there, it took at least a fifth of them.
  ASSERT_EQ(rec["process_runs"].size(), 1u);
  EXPECT_GT(double(run_source_time(rec["process_runs"][0], "preemption:nw_hog")), in_windows + 0.2 * paused);
  test::expect_windows_conserved(rec, true);
  for (const auto& f : {json, out}) std::filesystem::remove(f);
}

}  // namespace
}  // namespace nw::e2e
