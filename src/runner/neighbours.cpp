// SPDX-License-Identifier: Apache-2.0
#include "runner/neighbours.h"

#include <unistd.h>

#include <algorithm>

namespace nw::runner {

std::vector<Neighbour> busiest_neighbours(const std::vector<sys::TaskTime>& before,
                                          const std::vector<sys::TaskTime>& after, const std::vector<pid_t>& excluded,
                                          const std::vector<int>& benchmark_cpus, size_t keep, const PlaceOf& place_of,
                                          const CommOf& comm_of) {
  std::unordered_map<pid_t, const sys::TaskTime*> was;
  was.reserve(before.size());
  for (const auto& t : before) was[t.tid] = &t;
  struct Busy {
    uint64_t ns = 0, busiest_thread_ns = 0;
    int cpu = -1;
    std::string thread_comm;
  };
  std::unordered_map<pid_t, Busy> by_process;
  std::unordered_map<pid_t, std::string> process_comm;  // when the snapshot has it
  for (const auto& t : after) {
    if (std::find(excluded.begin(), excluded.end(), t.pid) != excluded.end()) continue;
    auto it = was.find(t.tid);
    const bool same_task = it != was.end() && it->second->pid == t.pid && it->second->runtime_ns <= t.runtime_ns;
    const uint64_t ran = same_task ? t.runtime_ns - it->second->runtime_ns : t.runtime_ns;
    if (ran == 0) continue;  // most tasks slept throughout: no second read for them
    // The task iterator gives the place with the times; /proc needs a read of the task's stat.
    auto place = t.place ? t.place : place_of(t.pid, t.tid);
    if (!place || std::find(benchmark_cpus.begin(), benchmark_cpus.end(), place->cpu) != benchmark_cpus.end()) continue;
    if (!t.process_comm.empty()) process_comm[t.pid] = t.process_comm;
    Busy& b = by_process[t.pid];
    b.ns += ran;
    if (ran > b.busiest_thread_ns) {
      b.busiest_thread_ns = ran;
      b.cpu = place->cpu;
      b.thread_comm = place->comm;
    }
  }
  std::vector<std::pair<pid_t, Busy>> ranked(by_process.begin(), by_process.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.ns != b.second.ns ? a.second.ns > b.second.ns : a.first < b.first;
  });
  if (ranked.size() > keep) ranked.resize(keep);
  std::vector<Neighbour> out;
  for (auto& [pid, b] : ranked) {
    // The process's name (its main thread's), not the busiest thread's: that is what ps and
    // kill are given.
    auto known = process_comm.find(pid);
    std::string comm = known != process_comm.end() ? known->second : comm_of(pid);
    out.push_back({int(pid), comm.empty() ? b.thread_comm : comm, b.ns, b.cpu});
  }
  return out;
}

void NeighbourWatch::before(pid_t benchmark) {
  benchmark_ = benchmark;
  if (!have_before_) before_ = snapshot_();
  have_before_ = false;
}

std::vector<Neighbour> NeighbourWatch::after() {
  std::vector<sys::TaskTime> now = snapshot_();
  auto out = busiest_neighbours(before_, now, {benchmark_, ::getpid()}, cpus_, kNeighboursKept, sys::read_task_place,
                                sys::read_process_comm);
  before_ = std::move(now);  // the next repetition's `before`
  have_before_ = true;
  return out;
}

}  // namespace nw::runner
