// SPDX-License-Identifier: Apache-2.0
#include "runner/repetition.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "system/monotonic_clock.h"

namespace nw::runner {

Repetition::Repetition(boost::asio::io_context& io, boost::asio::signal_set& signals) : io_(io), signals_(signals) {}

uint64_t wall_end(uint64_t start, uint64_t woke, uint64_t exited) { return exited > start ? exited : woke; }

namespace {
// The process's end as `exit_clock` gives it, waited for: its pidfd reads as exited at
// exit_notify(), a few microseconds before its last switch, and noisewatch can run in between (on
// the benchmark's CPU its wake-up preempts the exit, which a yield hands the CPU back to). Given
// up after 1 ms: the probe may not have seen that switch (a kernel that hides some), and the
// wake-up stands.
uint64_t exit_time(const std::function<uint64_t()>& exit_clock) {
  uint64_t e = exit_clock();
  for (const uint64_t give_up = sys::monotonic_ns() + 1'000'000; e == 0 && sys::monotonic_ns() < give_up;) {
    sched_yield();
    e = exit_clock();
  }
  return e;
}
}  // namespace

ChildResult Repetition::run(HeldChild& child, const std::function<uint64_t()>& exit_clock) {
  ChildResult r;
  // The descriptor is dup'ed so Asio can own (and close) its copy.
  boost::asio::posix::stream_descriptor exit_fd(io_, dup(child.pidfd()));
  bool exited = false;
  uint64_t end = 0;
  exit_fd.async_wait(boost::asio::posix::stream_descriptor::wait_read, [&](const boost::system::error_code&) {
    end = sys::monotonic_ns();
    exited = true;
  });
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                             int sig) {
    if (ec) return;
    r.forwarded_signal = sig;
    kill(child.pid(), sig);
    if (!exited) signals_.async_wait(on_signal);
  };
  signals_.async_wait(on_signal);

  uint64_t start = sys::monotonic_ns();
  child.release();
  io_.restart();
  while (!exited && io_.run_one() > 0) {
  }
  io_.poll();  // a signal that arrived with the exit is still forwarded and reported
  signals_.cancel();
  io_.restart();
  io_.poll();  // run the cancelled handlers so none outlives this frame
  if (!end) end = sys::monotonic_ns();
  if (exited && exit_clock) end = wall_end(start, end, exit_time(exit_clock));
  r.wall_ns = end - start;
  r.start_ns = start;

  int status = 0;
  pid_t got;
  do {
    got = wait4(child.pid(), &status, 0, &r.usage);
  } while (got < 0 && errno == EINTR);
  child.reaped_ = true;
  if (WIFEXITED(status)) {
    r.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.exit_status = 128 + WTERMSIG(status);
  }
  return r;
}

}  // namespace nw::runner
