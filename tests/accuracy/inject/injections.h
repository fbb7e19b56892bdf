// SPDX-License-Identifier: Apache-2.0
// The noises the injector applies for the lifetime of one repetition's benchmark process. Each
// logs its ground truth into the repetition's JSON line when stopped.
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace nw::inject {

struct Noise {
  virtual ~Noise() = default;
  // Stops the noise (idempotent) and adds what was done, and the kernel's own counts, to `truth`.
  virtual void stop(nlohmann::json& truth) = 0;
};

// A forked process named acc_hog spinning on `cpu`. Truth: hog_runtime_ns (its schedstat run
// time; it is born after the benchmark started, so that is its run time during the repetition).
std::unique_ptr<Noise> start_cpu_hog(int cpu);
// A thread named acc_timer pinned on `cpu`, waking every `period_us` on absolute deadlines with
// 1 ns timer slack. Truth: timer_wakeups, timer_switches (times it left the CPU, getrusage),
// timer_runtime_ns (its own CPU time), timer_pinned.
std::unique_ptr<Noise> start_timer_storm(int cpu, int period_us);
// `moves` sched_setaffinity moves of `pid`, other CPU / target CPU alternately, every `move_ms`.
// Truth: moves, moves_failed, cpus_after_moves, kernel_nr_migrations_delta.
std::unique_ptr<Noise> start_mover(pid_t pid, int target, int other, int moves, int move_ms);
// `threads` threads pinned on `io_cpu` doing 4 KiB O_DIRECT writes to the open file `fd`.
// Truth: io_writes, io_errors.
std::unique_ptr<Noise> start_io_storm(int fd, int io_cpu, int threads);

}  // namespace nw::inject
