// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of --windows gbench: a real Google Benchmark binary (tests/workloads/gbench/
// nw_gbench.cpp, built against the installed libbenchmark) with no markers. Each repetition it
// reports is a window named as it names it, its iteration-count search is kept as warm-ups, the
// window's time is the time it measured, and a hog continued in some repetitions is charged to
// those.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/gbench_helpers.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

struct HogTruth {
  uint64_t inner_ns = 0, outer_ns = 0;
};

std::vector<HogTruth> read_truth(const std::string& path) {
  std::vector<HogTruth> out;
  std::istringstream in(test::slurp(path));
  int k;
  HogTruth t;
  while (in >> k >> t.inner_ns >> t.outer_ns) out.push_back(t);
  return out;
}

class GbenchWindowsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(bin("nw_gbench")))
        << "nw_gbench was not built: install libbenchmark-dev (scripts/install-deps.sh test) and build again";
  }
};

TEST_F(GbenchWindowsE2E, EachRepetitionIsAWindowNamedAndTimedAsGbenchDoes) {
  const std::string json = temp_path("gbench.json"), out = temp_path("gbench-out.json"),
                    truth = temp_path("gbench.truth");
  Proc p;
  {
    StoppedHog hog;
    setenv("NW_GBENCH_TRUTH", truth.c_str(), 1);
    p = run({noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "--json", json, "--windows", "gbench", "--",
             bin("nw_gbench"), "--benchmark_repetitions=3", "--benchmark_min_time=0.05", "--benchmark_out=" + out});
    unsetenv("NW_GBENCH_TRUTH");
  }
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.err.find("each repetition Google Benchmark times"), std::string::npos) << p.err;
  const auto rec = load_json(json);
  EXPECT_EQ(rec["windows_harness"]["name"], "gbench");
  EXPECT_EQ(rec["windows_harness"]["output"], out);
  const auto gb = load_json(out);
  const auto reps = gbench_repetitions(gb);
  ASSERT_EQ(reps.size(), 9u);  // BM_search x 3, BM_hog x 6
  const auto windows = measured(rec);
  ASSERT_EQ(windows.size(), reps.size()) << rec["warnings"].dump();
  // The search for BM_search's iteration count (States of 1, 10, ... iterations) is warm-up.
  EXPECT_GT(rec["runs"].size(), windows.size());
  const auto hog = read_truth(truth);
  ASSERT_EQ(hog.size(), 6u);
  for (size_t i = 0; i < reps.size(); ++i) {
    const auto& w = windows[i];
    SCOPED_TRACE(w.dump());
    EXPECT_EQ(w["label"], reps[i]["name"]);
    // The window is what GBench timed: from the ResumeTiming in StartKeepRunning to
    // FinishKeepRunning's entry, around its own clock reads (the uprobes' traps: tens of
    // microseconds on a VM).
    const double wall = w["wall_ns"].get<double>(), timed = gbench_total_ns(reps[i]);
    EXPECT_NEAR(wall, timed, 0.01 * timed + 200'000) << reps[i].dump();
    uint64_t charged = 0;
    for (const auto& n : w["noise"]) charged += n["time_ns"].get<uint64_t>();
    EXPECT_LE(charged, w["wall_ns"].get<uint64_t>());
    if (i < 3) continue;
    // BM_hog's repetition k ran beside the hog when k is odd.
    const size_t k = i - 3;
    const uint64_t hog_ns = run_source_time(w, "preemption:nw_hog");
    if (k % 2 == 1) {
      EXPECT_GT(hog[k].inner_ns, 1'000'000u);
      EXPECT_GE(double(hog_ns) + 500'000, 0.95 * double(hog[k].inner_ns));
      EXPECT_LE(hog_ns, hog[k].outer_ns + 500'000);
    } else {
      EXPECT_LE(hog_ns, 500'000u);
    }
  }
  // Two benchmarks: one report each, the noisiest first, nothing computed across them.
  EXPECT_NE(p.err.find("2 benchmarks, each reported alone below"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("over 9 runs"), std::string::npos) << p.err;
  EXPECT_TRUE(rec["summary"]["cv"].is_null());
  EXPECT_EQ(rec["summary"]["per_label"], "by_label");
  EXPECT_TRUE(rec["attribution"].empty());
  const auto& blocks = rec["by_label"];
  ASSERT_EQ(blocks.size(), 2u) << rec.dump();
  EXPECT_GE(blocks[0]["summary"]["cv"].get<double>(), blocks[1]["summary"]["cv"].get<double>());
  int block_windows = 0;
  for (const auto& b : blocks) {
    SCOPED_TRACE(b["label"].dump());
    const int runs = b["summary"]["runs"];
    block_windows += runs;
    EXPECT_EQ(runs, b["label"] == "BM_search" ? 3 : 6);
    EXPECT_NE(p.err.find("── " + b["label"].get<std::string>() + " (" + std::to_string(runs) + " windows)"),
              std::string::npos);
    // Time conserved within a label (one thread): no source charges more than its mean window.
    double machine_ns = 0;
    for (const auto& row : b["attribution"]) {
      EXPECT_LE(row["mean_time_ns"].get<double>(), b["summary"]["mean_ns"].get<double>()) << row.dump();
      if (row["extra"]["group"] == "machine") machine_ns += row["mean_time_ns"].get<double>();
    }
    EXPECT_LE(machine_ns, b["summary"]["mean_ns"].get<double>());
  }
  EXPECT_EQ(block_windows, int(windows.size()));
  // compare reads the record beside the library's own JSON of the same run: the same names.
  Proc cmp = run({noisewatch(), "compare", out, json, "--format", "json"});
  ASSERT_NE(cmp.status, 125) << cmp.err;
  const auto c = nlohmann::json::parse(cmp.out);
  ASSERT_EQ(c["benchmarks"].size(), 2u) << cmp.out;
  for (const auto& b : c["benchmarks"]) {
    EXPECT_TRUE(b["name"] == "BM_search" || b["name"] == "BM_hog/iterations:50/repeats:6") << b["name"];
    EXPECT_EQ(b["new"]["runs"], b["base"]["runs"]) << b.dump();
  }
  for (const auto& w : c["warnings"]) EXPECT_EQ(w.get<std::string>().find("only in"), std::string::npos) << w;
  for (const auto& f : {json, out, truth}) std::filesystem::remove(f);
}

TEST_F(GbenchWindowsE2E, WithoutAnOutputFileNoisewatchHasItWriteOne) {
  const std::string json = temp_path("gbench-env.json");
  auto outputs = [] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/tmp"))
      n += e.path().filename().string().starts_with("noisewatch-gbench-");
    return n;
  };
  const size_t before = outputs();
  Proc p =
      run({noisewatch(), "--cpu", "1", "--runs", "2", "--warmup", "0", "--json", json, "--windows=gbench", "--",
           bin("nw_gbench"), "--benchmark_filter=BM_search", "--benchmark_repetitions=2", "--benchmark_min_time=0.02"});
  ASSERT_EQ(p.status, 0) << p.err;
  const auto rec = load_json(json);
  const auto windows = measured(rec);
  ASSERT_EQ(windows.size(), 4u) << rec["warnings"].dump();  // 2 repetitions x 2 process runs
  for (const auto& w : windows) EXPECT_EQ(w["label"], "BM_search");
  for (const auto& w : rec["warnings"])
    EXPECT_EQ(w.get<std::string>().find("Google Benchmark"), std::string::npos) << w;
  // Its file is gone with it.
  EXPECT_FALSE(std::filesystem::exists(rec["windows_harness"]["output"].get<std::string>()));
  EXPECT_EQ(outputs(), before);
  std::filesystem::remove(json);
}

TEST_F(GbenchWindowsE2E, WhatItCannotUseIsOneLineAndExit125) {
  const std::string json = temp_path("gbench-bad.json");
  Proc not_gbench =
      run({noisewatch(), "--runs", "1", "--json", json, "--windows", "gbench", "--", bin("nw_calls"), "1"});
  EXPECT_EQ(not_gbench.status, 125);
  EXPECT_NE(not_gbench.err.find("does not run Google Benchmark"), std::string::npos) << not_gbench.err;
  EXPECT_EQ(std::count(not_gbench.err.begin(), not_gbench.err.end(), '\n'), 1) << not_gbench.err;
  Proc csv = run({noisewatch(), "--runs", "1", "--json", json, "--windows", "gbench", "--", bin("nw_gbench"),
                  "--benchmark_out=/tmp/x.csv", "--benchmark_out_format=csv"});
  EXPECT_EQ(csv.status, 125);
  EXPECT_NE(csv.err.find("benchmark_out_format"), std::string::npos) << csv.err;
  Proc typo = run({noisewatch(), "--runs", "1", "--json", json, "--windows=gbenhc", "--", bin("nw_gbench")});
  EXPECT_EQ(typo.status, 125);
  EXPECT_NE(typo.err.find("no such harness"), std::string::npos) << typo.err;
  std::filesystem::remove(json);
}

}  // namespace
}  // namespace nw::e2e
