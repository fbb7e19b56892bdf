// SPDX-License-Identifier: Apache-2.0
// The probe's task iterator (bpf/task_times.bpf.h), which the neighbours of every repetition are
// read with, against /proc, which it stands in for: the same tasks, the same run times (between
// two /proc snapshots taken around it), the same CPU and names, numbered as the reader's pid
// namespace numbers them. Real eBPF: needs root.
#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <atomic>
#include <map>
#include <thread>

#include "probes/noise_probe.h"
#include "system/task_times.h"

namespace nw::probes {
namespace {

bool root() { return geteuid() == 0; }

// A task that root may not even inspect (readlink of its pid namespace refused): a security
// module protects it, and the task iterator does not show it either. Stock kernels have none;
// this project's VMs protect their supervisor (pid 1 and its threads) this way.
bool protected_task(pid_t pid) {
  char link[64];
  std::string path = "/proc/" + std::to_string(pid) + "/ns/pid";
  return readlink(path.c_str(), link, sizeof link) < 0 && errno == EACCES;
}

std::map<std::pair<pid_t, pid_t>, sys::TaskTime> by_task(const std::vector<sys::TaskTime>& v) {
  std::map<std::pair<pid_t, pid_t>, sys::TaskTime> m;
  for (const auto& t : v) m[{t.pid, t.tid}] = t;
  return m;
}

TEST(TaskIteratorE2E, AgreesWithProcTaskByTask) {
  if (!root()) GTEST_SKIP() << "needs root (loads the probe)";
  NoiseProbe probe;
  // A thread of ours with a name of its own, busy on CPU 1 until told to stop.
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread busy([&] {
    pthread_setname_np(pthread_self(), "nw-iter-busy");
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(1, &one);
    sched_setaffinity(0, sizeof one, &one);
    tid = pid_t(syscall(SYS_gettid));
    while (!stop) {
    }
  });
  while (!tid) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));

  auto before = by_task(sys::read_task_times());
  auto iterated = probe.task_times();
  auto after = by_task(sys::read_task_times());
  stop = true;
  busy.join();
  ASSERT_TRUE(iterated.has_value()) << "this kernel has task iterators (kernel 5.8+ with BTF)";
  auto seen = by_task(*iterated);

  size_t common = 0, hidden = 0;
  for (const auto& [key, b] : before) {
    auto a = after.find(key);
    if (a == after.end()) continue;  // ended while we read
    ++common;
    auto it = seen.find(key);
    if (it == seen.end() && protected_task(key.first)) {
      ++hidden;
      continue;
    }
    ASSERT_NE(it, seen.end()) << "task " << key.first << "/" << key.second << " is in /proc but not iterated";
    EXPECT_GE(it->second.runtime_ns, b.runtime_ns) << key.second;
    EXPECT_LE(it->second.runtime_ns, a->second.runtime_ns) << key.second;
    ASSERT_TRUE(it->second.place) << key.second;
    EXPECT_FALSE(it->second.place->comm.empty()) << key.second;
    EXPECT_FALSE(it->second.process_comm.empty()) << key.second;
  }
  EXPECT_GT(common, 20u);
  // Half, not a quarter: a quiet VM of the CI kind had 40 protected supervisor threads of 125 tasks.
  EXPECT_LT(hidden * 2, common) << "most tasks are protected from inspection here: nothing is compared";
  // Nothing iterated that /proc never listed (a task born between the snapshots is in `after`).
  for (const auto& [key, t] : seen) EXPECT_TRUE(after.count(key) || before.count(key)) << key.second;

  auto mine = seen.find({getpid(), tid.load()});
  ASSERT_NE(mine, seen.end());
  ASSERT_TRUE(mine->second.place);
  EXPECT_EQ(mine->second.place->comm, "nw-iter-busy");
  EXPECT_EQ(mine->second.process_comm, sys::read_process_comm(getpid()));
  EXPECT_EQ(mine->second.place->cpu, 1);
  auto place = sys::read_task_place(getpid(), getpid());
  ASSERT_TRUE(place);
  ASSERT_TRUE(seen.at({getpid(), getpid()}).place);
  EXPECT_EQ(seen.at({getpid(), getpid()}).place->comm, place->comm);
}

// In a new pid namespace the reader sees its own namespace, numbered as there: itself as pid 1
// and nothing of the parent's namespace (a container's noisewatch names its neighbours by the
// numbers its own ps shows).
TEST(TaskIteratorE2E, NumbersTasksAsTheReadersPidNamespaceDoes) {
  if (!root()) GTEST_SKIP() << "needs root (loads the probe, makes a pid namespace)";
  NoiseProbe probe;
  ASSERT_TRUE(probe.task_times().has_value());
  pid_t child = pid_t(syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, nullptr, nullptr, nullptr, 0));
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) {
    // Exit codes say what failed (gtest's assertions do not cross the fork).
    auto tasks = probe.task_times();
    if (!tasks) _exit(2);
    if (tasks->size() != 1) _exit(3);
    const auto& t = tasks->front();
    _exit(t.pid == 1 && t.tid == 1 && getpid() == 1 ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: not read, 3: tasks of another namespace seen, 4: not numbered 1";
}

}  // namespace
}  // namespace nw::probes
