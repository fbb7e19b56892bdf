// SPDX-License-Identifier: Apache-2.0
#include "probes/task_iterator.h"

#include <bpf/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "task_times.h"

namespace nw::probes {

namespace {

std::string name_of(const char (&s)[NW_TASK_COMM_LEN]) { return std::string(s, strnlen(s, sizeof s)); }

}  // namespace

std::optional<std::vector<sys::TaskTime>> read_task_iterator(int link_fd) {
  int fd = bpf_iter_create(link_fd);
  if (fd < 0) return std::nullopt;
  std::vector<sys::TaskTime> out;
  out.reserve(512);
  // The kernel's seq_file hands out whole records (a bpf_seq_write is never split across
  // reads); the carry only guards against a short read.
  nw_task_time buf[256];
  size_t carry = 0;
  for (;;) {
    ssize_t n = ::read(fd, reinterpret_cast<char*>(buf) + carry, sizeof buf - carry);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    size_t bytes = carry + size_t(n), whole = bytes / sizeof(nw_task_time);
    for (size_t i = 0; i < whole; ++i) {
      const nw_task_time& r = buf[i];
      out.push_back({.pid = pid_t(r.pid),
                     .tid = pid_t(r.tid),
                     .runtime_ns = r.runtime_ns,
                     .place = sys::TaskPlace{.comm = name_of(r.comm), .cpu = r.cpu},
                     .process_comm = name_of(r.process_comm)});
    }
    carry = bytes - whole * sizeof(nw_task_time);
    if (carry) std::memmove(buf, reinterpret_cast<char*>(buf) + whole * sizeof(nw_task_time), carry);
  }
  ::close(fd);
  return out;
}

}  // namespace nw::probes
