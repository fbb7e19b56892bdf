// SPDX-License-Identifier: Apache-2.0
// The neighbours of a repetition: which processes ran on the other CPUs between two snapshots of
// every task's run time (runner/neighbours.h), and the /proc parsing under it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>

#include "runner/neighbours.h"
#include "system/task_times.h"

namespace nw::runner {
namespace {

using sys::TaskPlace;
using sys::TaskTime;

// A fake /proc: where each task last ran and what each process is called.
struct FakeProc {
  std::map<pid_t, TaskPlace> places;   // by tid
  std::map<pid_t, std::string> comms;  // by pid
  PlaceOf place_of() const {
    return [this](pid_t, pid_t tid) -> std::optional<TaskPlace> {
      auto it = places.find(tid);
      if (it == places.end()) return std::nullopt;  // ended between the snapshots
      return it->second;
    };
  }
  CommOf comm_of() const {
    return [this](pid_t pid) {
      auto it = comms.find(pid);
      return it == comms.end() ? std::string{} : it->second;
    };
  }
};

TEST(Neighbours, BusiestProcessesOnOtherCpusSummedOverTheirThreads) {
  FakeProc proc;
  proc.places = {{100, {"stream", 0}}, {200, {"db", 0}},    {201, {"db-worker", 2}},  {300, {"kworker/1:0", 1}},
                 {400, {"idle", 0}},   {500, {"bench", 0}}, {600, {"noisewatch", 0}}, {700, {"newcomer", 3}}};
  proc.comms = {{100, "stream"}, {200, "db"}, {700, "newcomer"}};
  const std::vector<TaskTime> before = {{100, 100, 1'000}, {200, 200, 5'000}, {200, 201, 0}, {300, 300, 0},
                                        {400, 400, 42},    {500, 500, 0},     {600, 600, 0}};
  const std::vector<TaskTime> after = {{100, 100, 301'000},  // ran 300 us on CPU 0
                                       {200, 200, 105'000},  // the db's threads: 100 us + 250 us
                                       {200, 201, 250'000},
                                       {300, 300, 900'000},  // on the benchmark's CPU: the probe's preemption
                                       {400, 400, 42},       // slept throughout
                                       {500, 500, 800'000},  // the benchmark
                                       {600, 600, 700'000},  // noisewatch
                                       {700, 700, 50'000}};  // started meanwhile: all of its time
  auto n = busiest_neighbours(before, after, {500, 600}, {1}, 5, proc.place_of(), proc.comm_of());
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0].pid, 200);
  EXPECT_EQ(n[0].comm, "db");  // the process's name, not its busiest thread's
  EXPECT_EQ(n[0].cpu_ns, 350'000u);
  EXPECT_EQ(n[0].cpu, 2);  // where its busiest thread ran
  EXPECT_EQ(n[1].pid, 100);
  EXPECT_EQ(n[1].cpu_ns, 300'000u);
  EXPECT_EQ(n[1].cpu, 0);
  EXPECT_EQ(n[2].comm, "newcomer");
  EXPECT_EQ(n[2].cpu_ns, 50'000u);
  // Only the busiest are kept.
  auto top = busiest_neighbours(before, after, {500, 600}, {1}, 1, proc.place_of(), proc.comm_of());
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].pid, 200);
}

// The task iterator's snapshot carries each task's CPU and names: /proc is not asked at all.
TEST(Neighbours, PlacesAndNamesFromTheSnapshotWhenItHasThem) {
  auto no_proc_place = [](pid_t, pid_t) -> std::optional<TaskPlace> {
    ADD_FAILURE() << "read /proc for a place the snapshot had";
    return std::nullopt;
  };
  auto no_proc_comm = [](pid_t) {
    ADD_FAILURE() << "read /proc for a name the snapshot had";
    return std::string{};
  };
  auto task = [](pid_t pid, pid_t tid, uint64_t ns, int cpu, const char* comm, const char* process) {
    return TaskTime{.pid = pid, .tid = tid, .runtime_ns = ns, .place = TaskPlace{comm, cpu}, .process_comm = process};
  };
  const std::vector<TaskTime> before = {task(200, 200, 0, 0, "db", "db"), task(200, 201, 0, 2, "db-worker", "db"),
                                        task(300, 300, 0, 1, "on-bench-cpu", "on-bench-cpu")};
  const std::vector<TaskTime> after = {task(200, 200, 100'000, 0, "db", "db"),
                                       task(200, 201, 250'000, 2, "db-worker", "db"),
                                       task(300, 300, 900'000, 1, "on-bench-cpu", "on-bench-cpu")};
  auto n = busiest_neighbours(before, after, {}, {1}, 5, no_proc_place, no_proc_comm);
  ASSERT_EQ(n.size(), 1u);  // the task on the benchmark's CPU is the probe's preemption
  EXPECT_EQ(n[0].pid, 200);
  EXPECT_EQ(n[0].comm, "db");
  EXPECT_EQ(n[0].cpu_ns, 350'000u);
  EXPECT_EQ(n[0].cpu, 2);
}

TEST(Neighbours, ReusedTidAndVanishedTaskAndMissingComm) {
  FakeProc proc;
  proc.places = {{10, {"fresh", 0}}, {20, {"thread-name", 0}}};  // 30 ended before its place was read
  const std::vector<TaskTime> before = {{9, 10, 5'000'000}, {20, 20, 0}, {30, 30, 0}};
  // tid 10 now belongs to process 10 (another process, the old one ended): all of its time counts.
  const std::vector<TaskTime> after = {{10, 10, 2'000}, {20, 20, 1'000}, {30, 30, 9'000}};
  auto n = busiest_neighbours(before, after, {}, {1}, 5, proc.place_of(), proc.comm_of());
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0].pid, 10);
  EXPECT_EQ(n[0].cpu_ns, 2'000u);
  EXPECT_EQ(n[1].comm, "thread-name");  // no /proc/<pid>/comm any more: its thread's name
}

TEST(TaskTimes, ParsesCommWithSpacesAndParenthesesAndTheProcessorField) {
  // Fields 3..52 of a real stat line (kernel 6.x); `processor` (field 39) is 3.
  const std::string line =
      "4242 (my (odd) name) R 1 4242 4242 0 -1 4194304 120 0 0 0 31 2 0 0 20 0 1 0 12345 1000000 200 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0";
  auto p = sys::parse_task_place(line);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->comm, "my (odd) name");
  EXPECT_EQ(p->cpu, 3);
  EXPECT_FALSE(sys::parse_task_place("4242 (short) R 1 2 3").has_value());
  EXPECT_FALSE(sys::parse_task_place("garbage").has_value());
}

TEST(TaskTimes, ReadsEveryTaskOfThisMachineIncludingThisOne) {
  auto tasks = sys::read_task_times();
  bool self = false;
  for (const auto& t : tasks)
    if (t.pid == getpid() && t.tid == getpid()) self = t.runtime_ns > 0;  // it is running right now
  EXPECT_TRUE(self);
  auto place = sys::read_task_place(getpid(), getpid());
  ASSERT_TRUE(place.has_value());
  EXPECT_GE(place->cpu, 0);
  EXPECT_FALSE(sys::read_process_comm(getpid()).empty());
  EXPECT_EQ(sys::read_process_comm(-5), "");
}

}  // namespace
}  // namespace nw::runner
