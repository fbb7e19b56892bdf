// Neighbours end to end (issue #24 §4): the real binary, real eBPF, a real memory-bound benchmark
// on CPU 1 and a real memory-streaming neighbour on CPU 0. The benchmark (nw_membench) switches
// the neighbour (nw_stream) on for the length of its work in every other repetition, so the
// neighbour is busy in exactly those runs whatever else this shared machine does. Checked: the
// record lists the neighbour with its CPU time in the runs it was busy (and not, or barely, in
// the others), and the report names it as the likely cause of the unexplained time only when
// its CPU time follows the slow runs: a neighbour left quiet is never named.
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <iostream>

#include "run_helpers.h"

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

// Runs the benchmark under noisewatch with the neighbour's pid in its environment (`alternate`:
// it switches the neighbour on in every other repetition) and returns the saved record.
nlohmann::json run_beside(const Neighbour& n, bool alternate, int runs) {
  const std::string json = temp_path("neighbours.json"), counter = temp_path("runs");
  if (alternate) {
    setenv("NW_NEIGHBOUR_PID", std::to_string(n.pid).c_str(), 1);
    setenv("NW_NEIGHBOUR_RUNS", counter.c_str(), 1);
  }
  Proc p = run({noisewatch(), "--cpu", "1", "--fifo", "1", "--runs", std::to_string(runs), "--warmup", "1", "-q",
                "--json", json, "--", bin("nw_membench"), "64", "10"});
  unsetenv("NW_NEIGHBOUR_PID");
  unsetenv("NW_NEIGHBOUR_RUNS");
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

TEST(NeighboursE2E, NeighbourBusyInAlternateRunsIsNamed) {
  Neighbour stream;
  // 30 runs: one run's probe artefact (a 33 ms preemption charged to the VM agent's thread in a
  // run the benchmark hardly waited in) took r from about 0.9 to 0.56 over 12 runs.
  auto rec = run_beside(stream, true, 30);
  // Ground truth first: the benchmark switched the neighbour on in the repetitions it counted
  // odd (the warm-up is 0), and the record must show it busy in exactly those.
  std::vector<double> busy, quiet, busy_wall, quiet_wall;
  for (const auto& run : rec["runs"]) {
    ASSERT_TRUE(run.contains("neighbours")) << run.dump();
    if (run["warmup"].get<bool>()) continue;
    const bool on = run["index"].get<int>() % 2 == 1;
    (on ? busy : quiet).push_back(double(cpu_of(run, stream.pid)));
    (on ? busy_wall : quiet_wall).push_back(run["wall_ns"].get<double>());
  }
  ASSERT_EQ(busy.size(), 15u);
  const double quiet_max = *std::max_element(quiet.begin(), quiet.end());
  const double busy_min = *std::min_element(busy.begin(), busy.end());
  EXPECT_GT(busy_min, 0) << "the neighbour is missing from a run it was busy in";
  EXPECT_GT(busy_min, 5 * quiet_max) << "busy min " << busy_min << " ns, quiet max " << quiet_max << " ns";

  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
  };
  std::cout << "neighbour busy: median " << median(busy) / 1e6 << " ms of CPU, runs " << median(busy_wall) / 1e6
            << " ms; quiet: " << median(quiet) / 1e6 << " ms of CPU, runs " << median(quiet_wall) / 1e6 << " ms\n";
  const nlohmann::json* lead = lead_of(rec, stream.pid);
  if (lead) std::cout << "lead: " << lead->dump() << "\n";
  std::cout << "headline: " << rec["report"]["headline"].get<std::string>() << "\n";
  // The claim: its CPU time follows the slow runs, significantly, and the report says so.
  ASSERT_NE(lead, nullptr) << "not named; leads " << rec["report"]["leads"].dump() << "; headline "
                           << rec["report"]["headline"];
  EXPECT_EQ((*lead)["comm"], "nw_stream");
  EXPECT_EQ((*lead)["cpu"], 0);
  EXPECT_GT((*lead)["correlation"].get<double>(), 0);
  EXPECT_LT((*lead)["p_adjusted"].get<double>(), 0.05);
  EXPECT_GE((*lead)["runs_seen"].get<int>(), 15);
  const auto& warnings = rec["warnings"];
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [&](const nlohmann::json& w) {
    return w.get<std::string>().find("Likely cause of the unexplained time: nw_stream (pid " +
                                     std::to_string(stream.pid)) != std::string::npos;
  })) << warnings.dump();
  EXPECT_TRUE(std::any_of(rec["recommendations"].begin(), rec["recommendations"].end(),
                          [](const nlohmann::json& r) { return r["id"] == "stop-process:nw_stream"; }));
  // A lead charges nothing: no source of any run is the neighbour.
  for (const auto& run : rec["runs"])
    for (const auto& n : run["noise"]) EXPECT_EQ(n["source"].get<std::string>().find("nw_stream"), std::string::npos);
}

TEST(NeighboursE2E, QuietNeighbourIsNotNamed) {
  Neighbour stream;  // never switched on: it sleeps beside the benchmark
  auto rec = run_beside(stream, false, 12);
  for (const auto& run : rec["runs"]) {
    ASSERT_TRUE(run.contains("neighbours")) << run.dump();
    EXPECT_EQ(cpu_of(run, stream.pid), 0u) << run["neighbours"].dump();
  }
  EXPECT_EQ(lead_of(rec, stream.pid), nullptr) << rec["report"]["leads"].dump();
}

}  // namespace
}  // namespace nw::e2e
