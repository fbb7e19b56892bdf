// SPDX-License-Identifier: Apache-2.0
// Neighbours end to end (issue #24 §4): the real binary, real eBPF, a real memory-bound benchmark
// on CPU 1 (nw_membench) and a real memory-streaming neighbour on CPU 0 (nw_stream). The benchmark
// switches the neighbour on for the length of its work in every other repetition, so the
// neighbour is busy in exactly those runs whatever else this shared machine does.
//
// What the memory interference itself does here (2026-12-02, other people's builds running):
// busy runs were -2 to +10 % slower than quiet ones (64 MB, medians of each half), while this
// VM's host alone gives a CV of 6-9 %; the report named the neighbour in 5 of 11 attempts of 20 or
// 30 runs (r 0.56-0.69, Holm p 0.0001-0.046) and nobody in the others. Too weak to assert on.
// So the tests assert what the record and the report claim, on scenarios whose outcome is known:
// the record shows the neighbour's CPU time in exactly the runs it was busy in; when the slow
// runs are the ones it was busy in (the benchmark makes three times the passes in those runs:
// its own doing, which the report rightly cannot tell from interference, hence "likely"), it is
// named; when they are not (it is never switched on beside the same slow runs), it is not.
// (Half as many passes again was too little on a fresh VM of the CI kind, 2026-12-02: there the
// first touch of the 64 MB buffer, page faults through the hypervisor, takes ~230 ms of a run and
// a pass ~2 ms, so 5 more passes were +4 % against a CV of 13 %, and nothing was named.)
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <iostream>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

// nw_stream MB CPU, switched on and off by signals; killed at the end of the test.
struct Neighbour {
  pid_t pid = -1;
  Neighbour() {
    pid = spawn({bin("nw_stream"), "256", "0"}, "/dev/null", "/dev/null");
    // Other people's builds share this VM's CPUs, in other cgroups (where nice does not reach):
    // at SCHED_OTHER they took up to 85 % of CPU 0 from the neighbour while it was switched on,
    // and it then hardly competed. SCHED_FIFO makes it busy when on (for a few hundred ms at a
    // time; the kernel's RT throttling leaves others 5 %); the benchmark runs FIFO too (--fifo),
    // or the builds pushed off CPU 0 take CPU 1 from it.
    sched_param sp{};
    sp.sched_priority = 1;
    EXPECT_EQ(sched_setscheduler(pid, SCHED_FIFO, &sp), 0);
    // Ready once it sleeps: its buffer is touched (seconds on a loaded VM) and it waits for a signal.
    for (int i = 0; i < 400 && state() != 'S'; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(state(), 'S') << "nw_stream did not get ready";
  }
  char state() const {
    std::string stat = test::slurp("/proc/" + std::to_string(pid) + "/stat");
    auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
  }
  ~Neighbour() {
    if (pid <= 0) return;  // never kill(-1): that is every process
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

// Runs the benchmark under noisewatch and returns the saved record. `switch_on`: it switches the
// neighbour on in every other repetition; `extra_passes`: it makes that many more passes in those
// repetitions (slow runs of its own doing).
nlohmann::json run_beside(const Neighbour& n, bool switch_on, int extra_passes, int runs, int passes = 10) {
  const std::string json = temp_path("neighbours.json"), counter = temp_path("runs");
  setenv("NW_NEIGHBOUR_RUNS", counter.c_str(), 1);
  if (switch_on) setenv("NW_NEIGHBOUR_PID", std::to_string(n.pid).c_str(), 1);
  setenv("NW_EXTRA_PASSES", std::to_string(extra_passes).c_str(), 1);
  Proc p = run({noisewatch(), "--cpu", "1", "--fifo", "1", "--runs", std::to_string(runs), "--warmup", "1", "-q",
                "--json", json, "--", bin("nw_membench"), "64", std::to_string(passes)});
  for (const char* v : {"NW_NEIGHBOUR_PID", "NW_NEIGHBOUR_RUNS", "NW_EXTRA_PASSES"}) unsetenv(v);
  EXPECT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  unlink(json.c_str());
  unlink(counter.c_str());
  return rec;
}

// The neighbour's CPU time in one run of the record (0 when it is not listed).
uint64_t cpu_of(const nlohmann::json& run, pid_t pid) {
  for (const auto& x : run["neighbours"])
    if (x["pid"] == pid) return x["cpu_ns"].get<uint64_t>();
  return 0;
}

const nlohmann::json* lead_of(const nlohmann::json& rec, pid_t pid) {
  for (const auto& l : rec["report"]["leads"])
    if (l["pid"] == pid) return &l;
  return nullptr;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}

// The record's ground truth: the neighbour busy in exactly the runs the benchmark counted odd
// (the warm-up is 0), and charged to no source. Prints the medians.
void expect_busy_in_odd_runs(const nlohmann::json& rec, pid_t pid, size_t runs) {
  std::vector<double> busy, quiet, busy_wall, quiet_wall;
  for (const auto& run : rec["runs"]) {
    EXPECT_TRUE(run.contains("neighbours")) << run.dump();
    for (const auto& n : run["noise"]) EXPECT_EQ(n["source"].get<std::string>().find("nw_stream"), std::string::npos);
    if (run["warmup"].get<bool>()) continue;
    const bool on = run["index"].get<int>() % 2 == 1;
    (on ? busy : quiet).push_back(double(cpu_of(run, pid)));
    (on ? busy_wall : quiet_wall).push_back(run["wall_ns"].get<double>());
  }
  ASSERT_EQ(busy.size() + quiet.size(), runs);
  const double quiet_max = *std::max_element(quiet.begin(), quiet.end());
  const double busy_min = *std::min_element(busy.begin(), busy.end());
  EXPECT_GT(busy_min, 0) << "the neighbour is missing from a run it was busy in";
  EXPECT_GT(busy_min, 5 * quiet_max) << "busy min " << busy_min << " ns, quiet max " << quiet_max << " ns";
  std::cout << "neighbour busy: median " << median(busy) / 1e6 << " ms of CPU, runs " << median(busy_wall) / 1e6
            << " ms; quiet: " << median(quiet) / 1e6 << " ms of CPU, runs " << median(quiet_wall) / 1e6 << " ms\n"
            << "headline: " << rec["report"]["headline"].get<std::string>()
            << "\nleads: " << rec["report"]["leads"].dump() << "\n";
}

// Real interference only: the record must be right; whether it is named is printed (see top).
TEST(NeighboursE2E, StreamingNeighbourIsRecordedInTheRunsItWasBusy) {
  Neighbour stream;
  auto rec = run_beside(stream, true, 0, 30);
  expect_busy_in_odd_runs(rec, stream.pid, 30);
}

TEST(NeighboursE2E, NeighbourBusyInTheSlowRunsIsNamed) {
  Neighbour stream;
  auto rec = run_beside(stream, true, 40, 20, 20);  // 60 passes instead of 20 in the runs it is busy in
  expect_busy_in_odd_runs(rec, stream.pid, 20);
  const nlohmann::json* lead = lead_of(rec, stream.pid);
  ASSERT_NE(lead, nullptr) << "not named; leads " << rec["report"]["leads"].dump();
  EXPECT_EQ((*lead)["comm"], "nw_stream");
  EXPECT_EQ((*lead)["cpu"], 0);
  EXPECT_GT((*lead)["correlation"].get<double>(), 0.5);
  EXPECT_LT((*lead)["p_adjusted"].get<double>(), 0.05);
  EXPECT_EQ((*lead)["runs_seen"].get<int>(), 10);
  const auto& warnings = rec["warnings"];
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [&](const nlohmann::json& w) {
    return w.get<std::string>().find("Likely cause of the unexplained time: nw_stream (pid " +
                                     std::to_string(stream.pid)) != std::string::npos;
  })) << warnings.dump();
  EXPECT_TRUE(std::any_of(rec["recommendations"].begin(), rec["recommendations"].end(),
                          [](const nlohmann::json& r) { return r["id"] == "stop-process:nw_stream"; }));
  EXPECT_NE(rec["report"]["headline"].get<std::string>().find("likely nw_stream"), std::string::npos);
}

// The same slow runs, the neighbour never switched on: it sleeps beside the benchmark.
TEST(NeighboursE2E, QuietNeighbourIsNotNamed) {
  Neighbour stream;
  auto rec = run_beside(stream, false, 40, 20, 20);
  for (const auto& run : rec["runs"]) {
    ASSERT_TRUE(run.contains("neighbours")) << run.dump();
    EXPECT_EQ(cpu_of(run, stream.pid), 0u) << run["neighbours"].dump();
  }
  EXPECT_EQ(lead_of(rec, stream.pid), nullptr) << rec["report"]["leads"].dump();
}

}  // namespace
}  // namespace nw::e2e
