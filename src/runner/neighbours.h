// SPDX-License-Identifier: Apache-2.0
// The neighbours of one repetition (issue #24 §4): the processes that ran on the other CPUs
// while the benchmark ran. They share the caches, the memory bandwidth and (on a VM) the host's
// CPUs with it, and no probe charges them: the report correlates them with what stays
// unexplained. Two snapshots of every task's run time (the kernel's task iterator,
// probes/task_iterator.h, or /proc: system/task_times.h), one before the benchmark is released
// and one after it is reaped, so that their cost stays outside its timed window; the difference
// per process is what each neighbour ran meanwhile. A task that starts and ends between the
// snapshots is not seen. The snapshot after a repetition is also the one before the next (one
// snapshot per repetition, not two: ~0.1 ms through the iterator with ~200 tasks on this VM,
// 0.85 ms through /proc, against a repetition of hyperfine's kind lasting 2 ms); a neighbour busy
// in the gap between them (noisewatch's own work between repetitions) is counted with it.
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "record/run_record.h"
#include "system/task_times.h"

namespace nw::runner {

// How many neighbours a run keeps: enough for the few busy ones, small in the record.
inline constexpr size_t kNeighboursKept = 5;

using PlaceOf = std::function<std::optional<sys::TaskPlace>(pid_t pid, pid_t tid)>;
using CommOf = std::function<std::string(pid_t pid)>;

// The `keep` processes that ran longest between the snapshots on CPUs other than
// `benchmark_cpus`, busiest first. Processes in `excluded` (the benchmark, noisewatch) are not
// neighbours; a task whose last CPU is one of the benchmark's is left out (its time there is
// the probe's preemption); a task absent before (new, or its tid reused) counts all its run time.
// A task's place and its process's name come from the snapshot when it has them, else from
// `place_of` and `comm_of`.
std::vector<Neighbour> busiest_neighbours(const std::vector<sys::TaskTime>& before,
                                          const std::vector<sys::TaskTime>& after, const std::vector<pid_t>& excluded,
                                          const std::vector<int>& benchmark_cpus, size_t keep, const PlaceOf& place_of,
                                          const CommOf& comm_of);

using Snapshot = std::function<std::vector<sys::TaskTime>()>;

class NeighbourWatch {
 public:
  // `snapshot`: every task's run time (the kernel's task iterator, or /proc).
  NeighbourWatch(std::vector<int> benchmark_cpus, Snapshot snapshot)
      : cpus_(std::move(benchmark_cpus)), snapshot_(std::move(snapshot)) {}
  // Just before the held benchmark `benchmark` is released (reads the tasks' times unless the
  // last after() did).
  void before(pid_t benchmark);
  // Just after it is reaped.
  std::vector<Neighbour> after();

 private:
  std::vector<int> cpus_;
  Snapshot snapshot_;
  std::vector<sys::TaskTime> before_;
  bool have_before_ = false;  // before_ is the last after()'s snapshot
  pid_t benchmark_ = 0;
};

}  // namespace nw::runner
