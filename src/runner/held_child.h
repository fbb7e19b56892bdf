// SPDX-License-Identifier: Apache-2.0
// A forked benchmark process held before execve, so probes and counters can be attached to it
// before it runs a single instruction of the benchmark.
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "runner/plan.h"

namespace nw::runner {

class HeldChild {
 public:
  // Starts the child (a clone sharing noisewatch's memory until its execve); it pins itself to
  // `cpus` (when non-empty), applies the per-benchmark knobs of `setup` (ASLR off, SCHED_FIFO,
  // nice, environment), restores default signal handling and waits for release(). Throws
  // nw::Error when the clone fails or the child cannot be set up (the message says which step and
  // why; the child exits 125).
  // `cwd`: the directory it runs in ("" keeps noisewatch's).
  HeldChild(const std::vector<std::string>& argv, const std::vector<int>& cpus, const BenchmarkSetup& setup = {},
            const std::string& cwd = "");
  ~HeldChild();
  HeldChild(const HeldChild&) = delete;
  HeldChild& operator=(const HeldChild&) = delete;

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_; }
  // Lets the child execve. If exec fails the child prints why and exits 127 or 126.
  void release();
  // Kills a child that was never released (error paths).
  void abandon();

  // What the child reads between its clone and its execve (held_child.cpp).
  struct Spawn;

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int go_fd_ = -1;  // write end of the pipe the child blocks on
  bool reaped_ = false;
  std::unique_ptr<Spawn> spawn_;
  friend class Repetition;
};

// The environment a benchmark gets: the caller's (or, with clean_env, only PATH, HOME and
// LANG=C), then every --env K=V, replacing a variable of the same name.
std::vector<std::string> benchmark_environment(const BenchmarkSetup& setup, char** caller_env);

}  // namespace nw::runner
