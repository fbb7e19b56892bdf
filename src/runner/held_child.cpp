#include "runner/held_child.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "cli/errors.h"

namespace nw::runner {

HeldChild::HeldChild(const std::vector<std::string>& argv, const std::vector<int>& cpus) {
  int go[2], ready[2];
  if (pipe2(go, O_CLOEXEC) != 0) throw Error(fmt::format("pipe: {}", std::strerror(errno)));
  if (pipe2(ready, O_CLOEXEC) != 0) {
    close(go[0]);
    close(go[1]);
    throw Error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);

  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {go[0], go[1], ready[0], ready[1]}) close(fd);
    throw Error(fmt::format("cannot fork the benchmark: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    close(go[1]);
    close(ready[0]);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!cpus.empty() && sched_setaffinity(0, sizeof(set), &set) != 0) {
      dprintf(2, "noisewatch: cannot pin the benchmark: %s\n", std::strerror(errno));
      _exit(125);
    }
    // Pinned (sched_setaffinity on itself returns once it runs on an allowed CPU): from now on
    // it stays put, so tracking that starts after this cannot see noisewatch's own pinning as
    // a migration of the benchmark.
    char c = 'r';
    if (write(ready[1], &c, 1) != 1) _exit(125);
    close(ready[1]);
    ssize_t n;
    do {
      n = read(go[0], &c, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) _exit(125);  // noisewatch went away before releasing us
    close(go[0]);
    execvp(args[0], args.data());
    int err = errno;
    dprintf(2, "noisewatch: cannot execute %s: %s\n", args[0], std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  close(go[0]);
  close(ready[1]);
  pid_ = pid;
  go_fd_ = go[1];
  char c;
  ssize_t n;
  do {
    n = read(ready[0], &c, 1);
  } while (n < 0 && errno == EINTR);
  close(ready[0]);
  if (n != 1) {
    abandon();
    throw Error("the benchmark process could not be prepared (pinning failed; see the message above)");
  }
  pidfd_ = int(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd_ < 0) {
    abandon();
    throw Error(fmt::format("pidfd_open: {} (noisewatch needs Linux >= 5.3)", std::strerror(errno)));
  }
}

void HeldChild::release() {
  if (go_fd_ < 0) return;
  char c = 'g';
  ssize_t n;
  do {
    n = write(go_fd_, &c, 1);
  } while (n < 0 && errno == EINTR);
  close(go_fd_);
  go_fd_ = -1;
}

void HeldChild::abandon() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    reaped_ = true;
  }
  if (go_fd_ >= 0) close(go_fd_), go_fd_ = -1;
}

HeldChild::~HeldChild() {
  abandon();
  if (pidfd_ >= 0) close(pidfd_);
}

}  // namespace nw::runner
