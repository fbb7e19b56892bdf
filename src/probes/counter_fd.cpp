// SPDX-License-Identifier: Apache-2.0
#include "probes/counter_fd.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace nw::probes {

CounterFd& CounterFd::operator=(CounterFd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

void CounterFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

CounterFd CounterFd::open(const perf_event_attr& attr, pid_t pid, int group_fd) {
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
  return CounterFd(fd < 0 ? -1 : int(fd));
}

RawCount CounterFd::read() const {
  uint64_t buf[3] = {};
  ssize_t n = ::read(fd_, buf, sizeof buf);
  if (n < 0) throw std::system_error(errno, std::generic_category(), "reading a perf counter");
  if (n != ssize_t(sizeof buf)) throw std::system_error(EIO, std::generic_category(), "short read of a perf counter");
  return {buf[0], buf[1], buf[2]};
}

int probe_open(perf_event_attr attr) {
  attr.disabled = 1;
  attr.inherit = 0;
  attr.enable_on_exec = 0;
  CounterFd fd = CounterFd::open(attr, 0);
  return fd.valid() ? 0 : errno;
}

}  // namespace nw::probes
