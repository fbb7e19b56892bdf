// A forked benchmark process held before execve, so probes and counters can be attached to it
// before it runs a single instruction of the benchmark.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace nw::runner {

class HeldChild {
 public:
  // Forks; the child pins itself to `cpus` (when non-empty), restores default signal handling
  // and waits for release(). Throws nw::Error when fork fails.
  HeldChild(const std::vector<std::string>& argv, const std::vector<int>& cpus);
  ~HeldChild();
  HeldChild(const HeldChild&) = delete;
  HeldChild& operator=(const HeldChild&) = delete;

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_; }
  // Lets the child execve. If exec fails the child prints why and exits 127 or 126.
  void release();
  // Kills a child that was never released (error paths).
  void abandon();

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int go_fd_ = -1;  // write end of the pipe the child blocks on
  bool reaped_ = false;
  friend class Repetition;
};

}  // namespace nw::runner
