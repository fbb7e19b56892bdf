// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of --windows-exec: harnesses that start the benchmark as a new process for
// every run (a shell loop, the real hyperfine), unchanged. Each run is a window from its execve
// to its exit; the harness's own time between runs is in no window; a hog that strikes in the
// middle is charged to the runs it overlapped.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "support/conservation.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

constexpr const char* kHyperfine = "/usr/bin/hyperfine";

Proc run_exec_windows(const std::string& json, int runs, const std::string& comm,
                      const std::vector<std::string>& bench) {
  std::vector<std::string> argv{noisewatch(),     "--cpu", "1",  "--runs", std::to_string(runs),
                                "--warmup",       "0",     "-q", "--json", json,
                                "--windows-exec", comm,    "--"};
  argv.insert(argv.end(), bench.begin(), bench.end());
  return run(argv);
}

// Time is conserved in a window: what it was charged fits in its wall time.
void expect_conserved(const nlohmann::json& w) {
  uint64_t charged = 0;
  for (const auto& n : w["noise"]) charged += n["time_ns"].get<uint64_t>();
  EXPECT_LE(charged, w["wall_ns"].get<uint64_t>()) << w.dump();
}

TEST(ExecWindowsE2E, ShellLoopGivesOneWindowPerProcess) {
  UniqueCopy spin(bin("nw_spin"), "x");
  const std::string json = temp_path("exec-loop.json");
  // Six 20 ms runs, the shell sleeping 30 ms between them: the sleeps are the harness's.
  const std::string loop = "for i in 1 2 3 4 5 6; do " + spin.path + " 20; sleep 0.03; done";
  Proc p = run_exec_windows(json, 2, spin.comm, {"/bin/sh", "-c", loop});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  SCOPED_TRACE("lost_events " + rec["lost_events"].dump() + ", record " + json);
  EXPECT_EQ(rec["windows_exec"], spin.comm);
  ASSERT_EQ(rec["process_runs"].size(), 2u);
  ASSERT_EQ(rec["runs"].size(), 12u) << rec["warnings"].dump();
  for (size_t i = 0; i < rec["runs"].size(); ++i) {
    const auto& w = rec["runs"][i];
    SCOPED_TRACE(w.dump());
    EXPECT_EQ(w["label"], spin.comm);
    // Numbered 0-5 in each process run: the shell's `sleep` children were not windows.
    EXPECT_EQ(w["window"], i % 6);
    expect_conserved(w);
    // The run's own 20 ms of CPU time, and nothing of the shell's sleeps around it.
    const uint64_t wall = w["wall_ns"].get<uint64_t>();
    EXPECT_GE(wall, 20'000'000u);
    EXPECT_LE(wall, 60'000'000u);
    EXPECT_LE(w["blocking_ns"].get<uint64_t>(), 500'000u + wall / 50);
  }
  // The process run holds the sleeps: the windows leave at least 5 x 30 ms of it out.
  for (const auto& pr : rec["process_runs"]) {
    uint64_t windows_wall = 0;
    for (const auto& w : rec["runs"])
      if (w["process_run"] == pr["process_run"]) windows_wall += w["wall_ns"].get<uint64_t>();
    EXPECT_GE(pr["wall_ns"].get<uint64_t>(), windows_wall + 150'000'000u);
    EXPECT_GE(pr["blocking_ns"].get<uint64_t>(), 150'000'000u);
  }
  // A failing record is kept for diagnosis (a rare failure seen only in CI: window 5 of process
  // run 0 charged as blocking while the spin ran); its path is in the trace above.
  if (!::testing::Test::HasFailure()) std::filesystem::remove(json);
}

TEST(ExecWindowsE2E, ANameNoProcessRunsIsOneLineAndExit125) {
  const std::string json = temp_path("exec-none.json");
  Proc p = run_exec_windows(json, 1, "no_such_prog", {"/bin/true"});
  EXPECT_EQ(p.status, 125) << p.err;
  EXPECT_NE(p.err.find("--windows-exec no_such_prog"), std::string::npos) << p.err;
  std::filesystem::remove(json);
}

// hyperfine's JSON: the wall time of each of its runs, in seconds.
std::vector<double> hyperfine_times(const std::string& path) {
  std::vector<double> t;
  const auto j = load_json(path);
  for (const auto& v : j["results"][0]["times"]) t.push_back(v.get<double>());
  return t;
}

TEST(ExecWindowsE2E, HyperfineRunsAreTheWindowsAndAHogIsChargedToTheRunsItOverlapped) {
  ASSERT_TRUE(std::filesystem::exists(kHyperfine)) << "install hyperfine (scripts/install-deps.sh test)";
  constexpr int kRuns = 20;
  UniqueCopy spin(bin("nw_spin"), "h");
  const std::string json = temp_path("exec-hf.json"), times = temp_path("hf-times.json");
  // A hog on the benchmark's CPU for 0.4 s, starting 1.2 s after noisewatch (its start-up, then
  // about a third of the 20 runs of ~100 ms): the first and last runs are clean.
  pid_t hog = spawn({"/bin/sh", "-c", "sleep 1.2; exec " + bin("nw_hog") + " 0.4 1"}, "/dev/null", "/dev/null");
  Proc p = run_exec_windows(json, 1, spin.comm,
                            {kHyperfine, "-N", "--style", "none", "--runs", std::to_string(kRuns), "--export-json",
                             times, spin.path + " 100"});
  int st = 0;
  waitpid(hog, &st, 0);
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  auto hf = hyperfine_times(times);
  ASSERT_EQ(hf.size(), size_t(kRuns)) << test::slurp(times) << p.out << p.err;
  ASSERT_EQ(rec["runs"].size(), size_t(kRuns)) << rec["warnings"].dump();
  // Each window is hyperfine's run: its wall time within 2 % of hyperfine's own figure (which
  // also holds the fork, the execve's start and the reaping: about a millisecond here).
  std::vector<uint64_t> hog_ns;
  for (int i = 0; i < kRuns; ++i) {
    const auto& w = rec["runs"][size_t(i)];
    const double wall = double(w["wall_ns"].get<uint64_t>()), theirs = hf[size_t(i)] * 1e9;
    EXPECT_NEAR(wall, theirs, 0.02 * theirs) << "run " << i;
    EXPECT_LE(wall, theirs) << "run " << i << ": a window longer than hyperfine's measure of it";
    expect_conserved(w);
    hog_ns.push_back(run_source_time(w, "preemption:nw_hog"));
  }
  // The hog: charged to a contiguous stretch of runs in the middle, nowhere else.
  int first = -1, last = -1;
  uint64_t charged = 0;
  for (int i = 0; i < kRuns; ++i) {
    charged += hog_ns[size_t(i)];
    if (hog_ns[size_t(i)] > 1'000'000) {
      if (first < 0) first = i;
      last = i;
    }
  }
  ASSERT_GE(first, 0) << "the hog was charged to no run";
  EXPECT_GE(first, 2) << "the hog started well after the first runs";
  EXPECT_LE(last, kRuns - 3) << "the hog ended well before the last runs";
  for (int i = first; i <= last; ++i) EXPECT_GT(hog_ns[size_t(i)], 0u) << "run " << i << " inside the hog's stretch";
  // It shared the CPU with the benchmark for 0.4 s: roughly half of that is its, and all of it
  // fell in runs except the gaps between them.
  EXPECT_GE(charged, 100'000'000u);
  EXPECT_LE(charged, 400'000'000u);
  std::filesystem::remove(json);
  std::filesystem::remove(times);
}

TEST(ExecWindowsE2E, TheHyperfinePresetFindsTheProgramItself) {
  ASSERT_TRUE(std::filesystem::exists(kHyperfine)) << "install hyperfine (scripts/install-deps.sh test)";
  UniqueCopy spin(bin("nw_spin"), "p");
  const std::string json = temp_path("exec-hf-preset.json");
  // Through hyperfine's shell (no -N), with options that take values before the command; no
  // --runs or --warmup of noisewatch's: hyperfine repeats and warms up by itself, so it runs once.
  Proc p = run({noisewatch(), "--cpu", "1", "--json", json, "--windows", "hyperfine", "--", kHyperfine, "--style",
                "basic", "--runs", "5", "--warmup", "1", spin.path + " 20"});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  ASSERT_EQ(rec["process_runs"].size(), 1u) << rec["process_runs"].dump();
  EXPECT_FALSE(rec["process_runs"][0].value("warmup", true)) << rec["process_runs"].dump();
  // Its report printed once, and the first progress line says why.
  size_t reports = 0;
  for (size_t at = p.out.find("Benchmark 1:"); at != std::string::npos; at = p.out.find("Benchmark 1:", at + 1))
    ++reports;
  EXPECT_EQ(reports, 1u) << p.out;
  EXPECT_EQ(p.err.rfind("noisewatch: the harness runs once, with no warm-up run", 0), 0u) << p.err;
  EXPECT_EQ(rec["windows_harness"]["name"], "hyperfine");
  EXPECT_EQ(rec["windows_exec"], spin.comm);
  // hyperfine's warm-up run is a process too: 6 windows, each a run of ~20 ms.
  ASSERT_EQ(rec["runs"].size(), 6u) << rec["warnings"].dump();
  for (const auto& w : rec["runs"]) {
    EXPECT_EQ(w["label"], spin.comm);
    EXPECT_GE(w["wall_ns"].get<uint64_t>(), 15'000'000u);
    expect_conserved(w);
  }
  Proc wrong = run({noisewatch(), "--runs", "1", "--json", json, "--windows", "hyperfine", "--", bin("nw_spin"), "1"});
  EXPECT_EQ(wrong.status, 125);
  EXPECT_NE(wrong.err.find("not hyperfine"), std::string::npos) << wrong.err;
  std::filesystem::remove(json);
}

// pyperf behind a pyenv-style shim (tests/workloads/pyenv_like/python3: its first process execs
// env, bash, pyenv, pyenv-exec, then the interpreter, and forks helper scripts while it is still
// bash), with no --runs: pyperf runs once, its workers are the windows and nothing the shim ran is.
// (With the real pyenv on this project's VMs, 13 of the shim's helpers were windows labelled bash.)
TEST(ExecWindowsE2E, PyperfThroughAShimRunsOnceAndOnlyItsWorkersAreWindows) {
  constexpr int kWorkers = 4;
  const std::string json = temp_path("pyperf-shim.json"), truth = temp_path("pyperf-shim.truth");
  const std::string shim = std::string(NW_SOURCE_DIR) + "/tests/workloads/pyenv_like/python3";
  const std::string script = std::string(NW_SOURCE_DIR) + "/tests/workloads/nw_pyperf_like.py";
  Proc p = run({noisewatch(), "--cpu", "1", "-q", "--json", json, "--windows", "pyperf", "--", shim, script,
                std::to_string(kWorkers), "2", truth});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  EXPECT_EQ(rec["process_runs"].size(), 1u);
  ASSERT_EQ(rec["runs"].size(), size_t(kWorkers)) << rec["warnings"].dump();
  for (const auto& w : rec["runs"]) {
    EXPECT_EQ(w["label"], "python3") << w.dump();
    EXPECT_FALSE(w.contains("harness_duration_ns"));
    expect_conserved(w);
  }
  // No -o FILE for pyperf: the windows keep the program's name, and the record says why.
  EXPECT_NE(rec["warnings"].dump().find("no -o FILE or --append FILE"), std::string::npos) << rec["warnings"].dump();
  // pyperf refuses to overwrite its -o file: a second run of it is refused before anything runs,
  // with what works instead.
  Proc twice = run({noisewatch(), "--cpu", "1", "-q", "--runs", "2", "--windows", "pyperf", "--", "/usr/bin/python3",
                    "-m", "pyperf", "timeit", "-o", json, "1+1"});
  EXPECT_EQ(twice.status, 125);
  EXPECT_NE(twice.err.find("--append FILE"), std::string::npos) << twice.err;
  EXPECT_EQ(std::count(twice.err.begin(), twice.err.end(), '\n'), 1) << twice.err;
  std::filesystem::remove(json);
  std::filesystem::remove(truth);
}

// What pyperf's JSON says of its runs, as the stand-in writes them (one benchmark: each run's
// own metadata has its duration, which differs between runs).
struct PyperfJsonRun {
  uint64_t duration_ns = 0;
  bool calibration = false;
};
std::vector<PyperfJsonRun> pyperf_json_runs(const std::string& path) {
  auto j = load_json(path);
  std::vector<PyperfJsonRun> out;
  for (const auto& r : j["benchmarks"].at(0)["runs"])
    out.push_back({uint64_t(std::llround(r["metadata"]["duration"].get<double>() * 1e9)), !r.contains("values")});
  return out;
}

// What a --windows pyperf window holds beyond pyperf's duration of its run: the worker's start-up
// (the interpreter, its imports), its metadata and JSON once timed, its exit. Measured on this
// project's 2-vCPU VM (timeit -p 4 -n 3 -l 1000 -w 1): 28-32 ms a window with the stand-in, 70-73
// ms with the real pyperf 2.10 (its import is heavier). 300 ms leaves room for a slower start-up
// on a machine loaded by other builds.
constexpr uint64_t kPyperfStartupBoundNs = 300'000'000;

// Every window of a --windows pyperf record against its run in pyperf's JSON: the same duration,
// and a window that holds it (both clocks are CLOCK_MONOTONIC and pyperf's runs inside the
// worker's lifetime, so the difference is never negative; 1 us for the float seconds of the JSON).
void expect_windows_hold_their_runs(const nlohmann::json& windows, const std::vector<PyperfJsonRun>& runs) {
  ASSERT_EQ(windows.size(), runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    const auto& w = windows[k];
    SCOPED_TRACE(w.dump());
    EXPECT_EQ(w["label"], "sum_1000");
    EXPECT_EQ(w["warmup"], runs[k].calibration);
    ASSERT_TRUE(w.contains("harness_duration_ns"));
    const uint64_t duration = w["harness_duration_ns"].get<uint64_t>(), wall = w["wall_ns"].get<uint64_t>();
    EXPECT_NEAR(double(duration), double(runs[k].duration_ns), 1.0);
    EXPECT_GE(wall + 1'000, duration);
    EXPECT_LE(wall, duration + kPyperfStartupBoundNs);
    expect_conserved(w);
  }
}

// The whole process runs (the windows have no CPU time of their own) keep time as any run does.
void expect_process_runs_conserved(const nlohmann::json& rec) {
  nlohmann::json whole = rec;
  whole["runs"] = rec["process_runs"];
  test::expect_time_conserved(whole, {"python3"});
  test::expect_conserved_on_one_cpu(whole);
}

// pyperf names its benchmark and times each worker's run (tests/workloads/nw_pyperf_like.py writes
// pyperf's JSON, calibration run included): the windows take the name from its -o file and each
// its run's duration, the calibration worker is a warm-up window, and `compare` pairs the record
// with pyperf's JSON by that name, on the runs' durations.
TEST(ExecWindowsE2E, PyperfWindowsTakeTheBenchmarksNameAndItsRunsDurations) {
  constexpr int kWorkers = 4;
  const std::string json = temp_path("pyperf-named.json"), out = temp_path("pyperf-named.out.json");
  const std::string shim = std::string(NW_SOURCE_DIR) + "/tests/workloads/pyenv_like/python3";
  const std::string script = std::string(NW_SOURCE_DIR) + "/tests/workloads/nw_pyperf_like.py";
  std::filesystem::remove(out);
  Proc p = run({noisewatch(),
                "--cpu",
                "1",
                "-q",
                "--json",
                json,
                "--windows",
                "pyperf",
                "--",
                shim,
                script,
                "-p",
                std::to_string(kWorkers),
                "-n",
                "3",
                "-w",
                "1",
                "--min-time",
                "0.02",
                "--name",
                "sum_1000",
                "-o",
                out});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  auto runs = pyperf_json_runs(out);
  ASSERT_EQ(runs.size(), size_t(kWorkers + 1));  // without -l, a calibration worker first
  EXPECT_TRUE(runs[0].calibration);
  EXPECT_EQ(rec["windows_harness"]["output"], out);
  EXPECT_EQ(rec["summary"]["runs"], kWorkers);
  expect_windows_hold_their_runs(rec["runs"], runs);
  EXPECT_EQ(rec["warnings"].dump().find("--windows pyperf"), std::string::npos) << rec["warnings"].dump();
  expect_process_runs_conserved(rec);

  Proc cmp = run({noisewatch(), "compare", out, json, "--format", "json"});
  ASSERT_EQ(cmp.status, 0) << cmp.err;
  auto c = nlohmann::json::parse(cmp.out);
  ASSERT_EQ(c["benchmarks"].size(), 1u) << cmp.out;
  EXPECT_EQ(c["benchmarks"][0]["name"], "sum_1000");
  EXPECT_NE(c["warnings"].dump().find("compared on each worker run's duration"), std::string::npos) << cmp.out;
  std::filesystem::remove(json);
  std::filesystem::remove(out);
}

// pyperf --append adds each process run's runs to a file that already has some: each process run's
// windows pair with the runs it added, not with the file's earlier ones.
TEST(ExecWindowsE2E, PyperfAppendPairsEachProcessRunWithTheRunsItAdded) {
  const std::string json = temp_path("pyperf-append.json"), out = temp_path("pyperf-append.out.json");
  const std::string shim = std::string(NW_SOURCE_DIR) + "/tests/workloads/pyenv_like/python3";
  const std::string script = std::string(NW_SOURCE_DIR) + "/tests/workloads/nw_pyperf_like.py";
  std::filesystem::remove(out);
  const std::vector<std::string> bench = {script, "-n", "2", "-w", "1", "-l", "200", "--name", "sum_1000"};
  std::vector<std::string> first = {"/usr/bin/python3"};
  first.insert(first.end(), bench.begin(), bench.end());
  for (const char* a : {"-p", "2", "-o"}) first.push_back(a);
  first.push_back(out);
  ASSERT_EQ(run(first).status, 0);
  ASSERT_EQ(pyperf_json_runs(out).size(), 2u);

  std::vector<std::string> argv = {noisewatch(), "--cpu", "1",         "-q",     "--runs", "2",
                                   "--json",     json,    "--windows", "pyperf", "--",     shim};
  argv.insert(argv.end(), bench.begin(), bench.end());
  for (const char* a : {"-p", "3", "--append"}) argv.push_back(a);
  argv.push_back(out);
  Proc p = run(argv);
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  auto runs = pyperf_json_runs(out);
  ASSERT_EQ(runs.size(), 8u);
  ASSERT_EQ(rec["runs"].size(), 6u) << rec["warnings"].dump();
  for (int pr = 0; pr < 2; ++pr) {
    SCOPED_TRACE(pr);
    nlohmann::json windows = nlohmann::json::array();
    for (const auto& w : rec["runs"])
      if (w["process_run"] == pr) windows.push_back(w);
    expect_windows_hold_their_runs(windows, {runs.begin() + 2 + 3 * pr, runs.begin() + 5 + 3 * pr});
  }
  EXPECT_EQ(rec["warnings"].dump().find("--windows pyperf"), std::string::npos) << rec["warnings"].dump();
  expect_process_runs_conserved(rec);
  std::filesystem::remove(json);
  std::filesystem::remove(out);
}

// pyperf's shape (pyperf is not in Debian 12: a script that runs workers of itself as pyperf does,
// tests/workloads/nw_pyperf_like.py): each worker is a window, the master is not, and a hog the
// master continues for the odd workers is charged to those.
TEST(ExecWindowsE2E, PyperfWorkersAreTheWindowsNotTheMaster) {
  constexpr int kWorkers = 6;
  const std::string json = temp_path("pyperf.json"), truth = temp_path("pyperf.truth");
  const std::string script = std::string(NW_SOURCE_DIR) + "/tests/workloads/nw_pyperf_like.py";
  Proc p;
  {
    StoppedHog hog;
    p = run({noisewatch(), "--cpu", "1", "--runs", "1", "--warmup", "0", "--json", json, "--windows", "pyperf", "--",
             "/usr/bin/python3", script, std::to_string(kWorkers), "3", truth});
  }
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  EXPECT_EQ(rec["windows_harness"]["name"], "pyperf");
  std::istringstream in(test::slurp(truth));
  std::vector<std::array<uint64_t, 3>> workers;
  int k;
  uint64_t wall, inner, outer;
  while (in >> k >> wall >> inner >> outer) workers.push_back({wall, inner, outer});
  ASSERT_EQ(workers.size(), size_t(kWorkers));
  ASSERT_EQ(rec["runs"].size(), size_t(kWorkers)) << rec["warnings"].dump();
  for (size_t i = 0; i < workers.size(); ++i) {
    const auto& w = rec["runs"][i];
    SCOPED_TRACE(w.dump());
    EXPECT_EQ(w["label"], "python3");
    // The worker's window: inside the master's clock around it, less at most its
    // subprocess.run() set-up before the fork and the reaping after the switch-in.
    const uint64_t ns = w["wall_ns"].get<uint64_t>();
    EXPECT_LE(ns, workers[i][0]);
    EXPECT_GE(ns + 5'000'000, workers[i][0]);
    expect_conserved(w);
    const uint64_t hog_ns = run_source_time(w, "preemption:nw_hog");
    if (i % 2 == 1) {
      EXPECT_GT(workers[i][1], 1'000'000u);
      EXPECT_GE(double(hog_ns) + 500'000, 0.95 * double(workers[i][1]));
      EXPECT_LE(hog_ns, workers[i][2] + 500'000);
    } else {
      EXPECT_LE(hog_ns, 500'000u);
    }
  }
  std::filesystem::remove(json);
  std::filesystem::remove(truth);
}

}  // namespace
}  // namespace nw::e2e
