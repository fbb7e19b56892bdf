// SPDX-License-Identifier: Apache-2.0
// One perf_event_open file descriptor, owned: opened on a task, read with its enabled/running
// times (so multiplexing can be detected and scaled), closed on destruction.
#pragma once
#include <sys/types.h>

#include <cstdint>

#include <linux/perf_event.h>

namespace nw::probes {

// What read() returns with PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING.
struct RawCount {
  uint64_t value = 0;
  uint64_t time_enabled_ns = 0;
  uint64_t time_running_ns = 0;
};

class CounterFd {
 public:
  CounterFd() = default;
  explicit CounterFd(int fd) : fd_(fd) {}
  CounterFd(CounterFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  CounterFd& operator=(CounterFd&& o) noexcept;
  CounterFd(const CounterFd&) = delete;
  CounterFd& operator=(const CounterFd&) = delete;
  ~CounterFd() { reset(); }

  // perf_event_open(attr, pid, cpu=-1, group_fd, CLOEXEC). Returns an invalid CounterFd and
  // leaves errno set on failure, so callers can decide between "unavailable" and "error".
  static CounterFd open(const perf_event_attr& attr, pid_t pid, int group_fd = -1);

  // Throws std::system_error when the read fails or is short.
  RawCount read() const;

  bool valid() const { return fd_ >= 0; }
  int get() const { return fd_; }
  void reset();

 private:
  int fd_ = -1;
};

// Can this event be opened here at all? Opens it disabled on the calling thread and closes it.
// Returns 0 when it can, otherwise the errno of perf_event_open.
int probe_open(perf_event_attr attr);

}  // namespace nw::probes
