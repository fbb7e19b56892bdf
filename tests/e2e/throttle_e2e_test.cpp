// SPDX-License-Identifier: Apache-2.0
// CFS bandwidth throttling, end to end (issue #24 section 1): a CPU-bound benchmark in a cgroup
// v1 `cpu` group with a quota of 0.3 CPU spends most of its wall time runnable but throttled.
// That time is charged to throttle:<the group>, agrees with the group's own cpu.stat, closes the
// account of the run (CPU time + blocking + charged ~ wall), and the advice is the quota's.
// Needs root and a cgroup v1 cpu controller (skips with the reason otherwise).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

const std::string kCpuRoot = "/sys/fs/cgroup/cpu";

bool v1_cpu_controller() {
  struct stat st {};
  return geteuid() == 0 && stat((kCpuRoot + "/cpu.cfs_quota_us").c_str(), &st) == 0;
}

void write_file(const std::string& path, const std::string& value) {
  std::ofstream f(path);
  f << value;
  f.flush();
  if (!f) ADD_FAILURE() << "cannot write " << value << " to " << path;
}

// A group of its own with a quota; removed on every path out of the test (its processes have
// exited by then: they were noisewatch and the benchmark, run to the end).
struct QuotaGroup {
  std::string name, dir;
  QuotaGroup(int quota_us, int period_us) {
    name = "/nw-throttle-" + std::to_string(getpid());
    dir = kCpuRoot + name;
    mkdir(dir.c_str(), 0755);
    write_file(dir + "/cpu.cfs_period_us", std::to_string(period_us));
    write_file(dir + "/cpu.cfs_quota_us", std::to_string(quota_us));
  }
  ~QuotaGroup() { rmdir(dir.c_str()); }
};

uint64_t source_time(const nlohmann::json& run, const std::string& prefix) {
  uint64_t t = 0;
  for (const auto& n : run["noise"])
    if (n["source"].get<std::string>().rfind(prefix, 0) == 0) t += n["time_ns"].get<uint64_t>();
  return t;
}

// Did the kernel leave some of this run's switches untraced (probe_switches.unseen: see
// expect_throttle_accounted)?
bool untraced(const nlohmann::json& run) {
  return run.contains("probe_switches") && run["probe_switches"].value("unseen", 0) > 0;
}

// The record's untraced runs, and its measured runs.
std::pair<int, int> untraced_runs(const nlohmann::json& rec) {
  int n = 0, measured = 0;
  for (const auto& run : rec["runs"]) {
    if (run["warmup"].get<bool>()) continue;
    ++measured;
    if (untraced(run)) ++n;
  }
  return {n, measured};
}

// Runs `bench` in a new group with a quota of `quota_us` per 100 ms, `runs` times on `cpus`. A
// record whose runs were mostly untraced (a burst of this VM's hidden agent threads on the CPU)
// is measured again, up to twice: the premise of the accounting checks is a traced run.
nlohmann::json run_in_group(const QuotaGroup& group, const std::string& cpus, const std::string& bench, int runs) {
  nlohmann::json rec;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::string json = temp_path("throttle.json");
    std::string inner = "echo $$ > " + group.dir + "/cgroup.procs && exec " + noisewatch() + " --runs " +
                        std::to_string(runs) + " --cpu " + cpus + " -q --json " + json + " -- " + bench;
    Proc p = run({"/bin/sh", "-c", inner});
    EXPECT_EQ(p.status, 0) << p.err;
    rec = load_json(json);
    unlink(json.c_str());
    auto [untraced_n, measured] = untraced_runs(rec);
    if (2 * untraced_n <= measured) break;
    std::cerr << "(" << untraced_n << " of " << measured << " runs had untraced switches: measured again)\n";
  }
  EXPECT_TRUE(rec["host"].contains("cgroup")) << rec["host"].dump();
  EXPECT_EQ(rec["host"]["cgroup"].value("quota_path", ""), group.name);
  return rec;
}

// What holds for every workload shape under a quota: the throttle source is the group; per CPU
// it never charges more than the wall time; with the rest of the account it covers the wall
// time (on one CPU: own CPU time + blocking + everything charged but contention is the wall
// time within 5 %; on several, never above wall x CPUs); and it agrees with the group's own
// cpu.stat within 10 % (median over the runs).
// A run with switches the kernel did not trace (probe_switches.unseen: on these VMs the init
// agent's threads, which a busy agent puts on the benchmark's CPU in about one test in ten) says
// its accounting around them is reconstructed: a throttle that began or ended unseen is missed or
// overlaps the hidden task's charge. The bounds hold for the fully traced runs (run_in_group
// measures again when they are fewer than half).
void expect_throttle_accounted(const nlohmann::json& rec, const std::string& source) {
  const double ncpus = double(rec["cpus"].size());
  std::vector<double> ratios;
  for (const auto& run : rec["runs"]) {
    if (run["warmup"].get<bool>()) continue;
    if (untraced(run)) continue;
    SCOPED_TRACE(run.dump());
    const double wall = run["wall_ns"].get<double>();
    double throttled = 0, charged = 0;
    for (const auto& n : run["noise"]) {
      // Blocking is a source too. Contention is not: it is the time one of the benchmark's own
      // tasks ran while another waited, which is in the CPU time already.
      if (n["source"].get<std::string>().rfind("contention:", 0) != 0) charged += n["time_ns"].get<double>();
      if (n["source"] != source) continue;
      throttled += n["time_ns"].get<double>();
      if (n.contains("detail") && n["detail"].contains("per_cpu_ns"))
        for (const auto& part : n["detail"]["per_cpu_ns"]) EXPECT_LE(part.get<double>(), wall);
      else EXPECT_LE(n["time_ns"].get<double>(), wall);
    }
    ASSERT_TRUE(run.contains("cgroup_throttled_ns"));
    const double kernel = run["cgroup_throttled_ns"].get<double>();
    EXPECT_GT(kernel, 0.2 * wall) << "the quota did not throttle the benchmark: the premise failed";
    ratios.push_back(throttled / kernel);
    const double own = run["cpu_ns"].get<double>() - run["cpu_irq_ns"].get<double>();
    if (ncpus == 1) {
      EXPECT_GE(own + charged, 0.95 * wall);
      EXPECT_LE(own + charged, 1.05 * wall + 0.5e6);
    } else {
      EXPECT_LE(own + charged, ncpus * (1.05 * wall) + 0.5e6);
    }
  }
  // The median over the runs: on a CPU shared with other work, a run's episode can end later than
  // the unthrottle (the task waited for the CPU; measured up to 1.4 with a spinner on the same
  // CPU) or the group's count can hold noisewatch's own throttling on its CPU (down to 0.8).
  const auto [untraced_n, measured] = untraced_runs(rec);
  EXPECT_LE(2 * untraced_n, measured) << "fewer than half the runs were fully traced, three times";
  ASSERT_FALSE(ratios.empty());
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  EXPECT_NEAR(median, 1.0, 0.10) << "throttle: charged / cpu.stat per run, median of " << ratios.size();
}

TEST(ThrottleE2E, QuotaIsChargedToTheGroup) {
  if (!v1_cpu_controller()) GTEST_SKIP() << "needs root and the cgroup v1 cpu controller at " << kCpuRoot;
  QuotaGroup group(30000, 100000);  // 0.3 CPU: a 40 ms spin takes ~130 ms of wall time
  auto rec = run_in_group(group, "1", bin("nw_spin") + " 40", 8);
  const std::string source = "throttle:" + group.name;
  EXPECT_EQ(rec["host"]["cgroup"]["quota_us"], 30000);
  expect_throttle_accounted(rec, source);
  // The quota is the first source, and its advice is the quota's.
  ASSERT_FALSE(rec["attribution"].empty());
  const auto& first = rec["attribution"][0];
  EXPECT_EQ(first["source"], source) << rec["attribution"].dump();
  EXPECT_GE(first["share"].get<double>(), 0.8) << rec["attribution"].dump();
  bool advised = false;
  for (const auto& r : rec["recommendations"])
    if (r["id"] == "cpu-quota")
      for (const auto& a : r["addresses"]) advised = advised || a == source;
  EXPECT_TRUE(advised) << rec["recommendations"].dump();
}

TEST(ThrottleE2E, WrapperShells) {
  if (!v1_cpu_controller()) GTEST_SKIP() << "needs root and the cgroup v1 cpu controller at " << kCpuRoot;
  QuotaGroup group(30000, 100000);
  auto rec = run_in_group(group, "1", "/bin/sh -c '/bin/sh -c \"" + bin("nw_spin") + " 40\"; true'", 4);
  expect_throttle_accounted(rec, "throttle:" + group.name);
}

TEST(ThrottleE2E, ThreadsOnOneCpu) {
  // Three threads and a child on one CPU, throttled together: one episode per unthrottle,
  // charged once, and their wait for each other after it is contention.
  if (!v1_cpu_controller()) GTEST_SKIP() << "needs root and the cgroup v1 cpu controller at " << kCpuRoot;
  QuotaGroup group(30000, 100000);
  auto rec = run_in_group(group, "1", bin("nw_threads") + " 3 15", 4);
  expect_throttle_accounted(rec, "throttle:" + group.name);
}

TEST(ThrottleE2E, ThreadsOnSeveralCpus) {
  if (!v1_cpu_controller()) GTEST_SKIP() << "needs root and the cgroup v1 cpu controller at " << kCpuRoot;
  QuotaGroup group(50000, 100000);
  auto rec = run_in_group(group, "0-1", bin("nw_threads") + " 2 30", 4);
  expect_throttle_accounted(rec, "throttle:" + group.name);
}

}  // namespace
}  // namespace nw::e2e
