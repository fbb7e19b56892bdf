// SPDX-License-Identifier: Apache-2.0
// Runner pieces that need no kernel: merging probe events, steal parsing, CPU choice, lookup.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "runner/command_lookup.h"
#include "runner/cpu_choice.h"
#include "runner/noise_merge.h"
#include "runner/steal.h"
#include "runner/task_switches.h"
#include "system/interrupts.h"

namespace nw::runner {
namespace {

using probes::NoiseEvent;

TEST(NoiseMerge, SumsAcrossCpusAndTasksKeepsEvidence) {
  std::vector<NoiseEvent> ev = {
      {"preemption:stress", 1, 3, 3000, 1500, {{"pid", 100}}}, {"preemption:stress", 0, 2, 1000, 900, {{"pid", 101}}},
      {"irq:virtio1-req.0", 1, 5, 500, 200, {{"irq", 36}}},    {"migration", 1, 2, 0, 0, {{"from", 1}, {"to", 0}}},
      {"migration", 0, 1, 0, 0, {{"from", 0}, {"to", 1}}},
  };
  auto m = merge_noise(ev);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].source, "preemption:stress");  // largest time first
  EXPECT_EQ(m[0].count, 5u);
  EXPECT_EQ(m[0].time_ns, 4000u);
  EXPECT_EQ(m[0].max_ns, 1500u);
  EXPECT_EQ(m[0].detail["pid"], 100);
  EXPECT_EQ(m[0].detail["pids"], (std::vector<int64_t>{100, 101}));
  EXPECT_EQ(m[0].detail["cpus"], (std::vector<int>{0, 1}));
  EXPECT_EQ(m[1].source, "irq:virtio1-req.0");
  EXPECT_EQ(m[1].detail["irq"], 36);
  EXPECT_EQ(m[2].source, "migration");
  EXPECT_EQ(m[2].count, 3u);
  ASSERT_EQ(m[2].detail["paths"].size(), 2u);
  EXPECT_EQ(m[2].detail["paths"][0]["from"], 0);
  EXPECT_EQ(m[2].detail["paths"][0]["count"], 1);
  EXPECT_EQ(m[2].detail["paths"][1]["count"], 2);
}

// PREEMPT_RT: an interrupt's hard handler and its thread are one source; the detail keeps how
// much ran in the thread (each thread slice counts, as each hard handler run does).
TEST(MergeNoise, AThreadedIrqIsOneSourceWithItsThreadPart) {
  std::vector<probes::NoiseEvent> ev = {
      {"irq:virtio0-req.1", 1, 10, 1000, 200, {{"irq", 26}}},
      {"irq:virtio0-req.1", 1, 4, 5000, 2000, {{"irq", 26}, {"pid", 77}, {"irq_thread", true}}},
      {"irq:virtio0-req.1", 1, 1, 700, 700, {{"irq", 26}, {"pid", 77}, {"irq_thread", true}}},
  };
  auto m = merge_noise(ev);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].count, 15u);
  EXPECT_EQ(m[0].time_ns, 6700u);
  EXPECT_EQ(m[0].detail["threaded_count"], 5);
  EXPECT_EQ(m[0].detail["threaded_ns"], 5700);
  EXPECT_FALSE(m[0].detail.contains("irq_thread")) << m[0].detail.dump();
  EXPECT_LE(m[0].detail["threaded_ns"].get<uint64_t>(), m[0].time_ns);
}

TEST(Steal, SumsTheStealColumnOfChosenCpus) {
  const char* stat =
      "cpu  100 0 50 1000 0 0 0 30 0 0\n"
      "cpu0 50 0 25 500 0 0 0 10 0 0\n"
      "cpu1 50 0 25 500 0 0 0 20 0 0\n"
      "intr 12345\n";
  const uint64_t tick = 1'000'000'000ull / uint64_t(sysconf(_SC_CLK_TCK));
  EXPECT_EQ(read_steal_ns({1}, stat), 20 * tick);
  EXPECT_EQ(read_steal_ns({0, 1}, stat), 30 * tick);
  EXPECT_EQ(read_steal_ns({7}, stat), 0u);
  EXPECT_EQ(read_steal_ns({0}, ""), 0u);
}

TEST(TaskSwitches, ReadsBothCountsFromProcStatus) {
  auto t = parse_task_switches(
      "Name:\tbench\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t12\n"
      "nonvoluntary_ctxt_switches:\t3\n");
  EXPECT_EQ(t.voluntary, 12u);
  EXPECT_EQ(t.involuntary, 3u);
  auto none = parse_task_switches("Name:\tx\nvoluntary_ctxt_switches:\tgarbage\n");
  EXPECT_EQ(none.voluntary, 0u);
  EXPECT_EQ(none.involuntary, 0u);
  // This process has been switched out at least once by now.
  usleep(1000);  // a sleep is a voluntary switch: the count below cannot be 0
  auto self = read_task_switches(getpid());
  EXPECT_GT(self.voluntary + self.involuntary, 0u);
  EXPECT_EQ(read_task_switches(-1).voluntary, 0u);
}

TEST(TaskRuntime, ReadsTheFirstFieldOfSchedstat) {
  EXPECT_EQ(parse_task_runtime("123456789 5000 42\n"), 123456789u);
  EXPECT_EQ(parse_task_runtime(""), 0u);
  EXPECT_EQ(parse_task_runtime("garbage"), 0u);
  // This process has run by now, and a task that is gone reads 0.
  EXPECT_GT(read_task_runtime(getpid()), 0u);
  EXPECT_EQ(read_task_runtime(-1), 0u);
}

TEST(DefaultCpus, AvoidsCpu0AndPrefersFewestDeviceIrqs) {
  auto irqs = sys::parse_interrupts(
      "      CPU0   CPU1   CPU2   CPU3\n"
      " 10:     5    900     10    300  IO-APIC 1-edge nvme0q1\n"
      " 11:     0      0     50      0  IO-APIC 2-edge eth0\n"
      "LOC:  9999   9999   9999      1  Local timer interrupts\n");
  auto c = choose_cpu({0, 1, 2, 3}, irqs);
  ASSERT_EQ(c.cpus, std::vector<int>{2});  // 60 device IRQs; CPU 0 (5) is never picked; LOC ignored
  EXPECT_NE(c.reason.find("CPU 0 avoided"), std::string::npos) << c.reason;
  EXPECT_EQ(choose_cpu({0}, irqs).cpus, std::vector<int>{0});
  EXPECT_EQ(choose_cpu({0, 3}, irqs).cpus, std::vector<int>{3});
}

TEST(CommandLookup, ReportsLikeAShell) {
  EXPECT_EQ(lookup_command("sh").status, 0);
  EXPECT_EQ(lookup_command("/nonexistent/x").status, 127);
  EXPECT_EQ(lookup_command("no-such-command-nw").status, 127);
  EXPECT_EQ(lookup_command("/").status, 126);
  // A regular file without execute bits (root included: access(X_OK) needs one x bit).
  std::string plain = "/tmp/nw-runner-test-" + std::to_string(getpid());
  FILE* f = fopen(plain.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("#!/bin/sh\n", f);
  fclose(f);
  chmod(plain.c_str(), 0644);
  EXPECT_EQ(lookup_command(plain).status, 126);
  unlink(plain.c_str());
}

}  // namespace
}  // namespace nw::runner
