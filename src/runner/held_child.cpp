// SPDX-License-Identifier: Apache-2.0
#include "runner/held_child.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "common/errors.h"
#include "runner/command_lookup.h"
#include "system/cpulist.h"

extern char** environ;

namespace nw::runner {

namespace {

// What the child tells the parent through the ready pipe: 'r', or 'e' + the step that failed
// and its errno (the parent turns them into a message: the child may only make
// async-signal-safe calls).
enum Step : unsigned char { kPin = 1, kAslr, kNice, kFifo, kSlack, kCwd };
constexpr char kReady = 'r', kFailed = 'e';
constexpr size_t kReportSize = 2 + sizeof(int);

[[noreturn]] void child_fails(int fd, Step step, int err) {
  char report[kReportSize] = {kFailed, char(step)};
  std::memcpy(report + 2, &err, sizeof err);
  ssize_t ignored = write(fd, report, sizeof report);
  (void)ignored;
  _exit(125);
}

std::string step_message(Step step, int err, const std::vector<int>& cpus, const BenchmarkSetup& s,
                         const std::string& cwd) {
  std::string why = std::strerror(err);
  bool denied = err == EPERM || err == EACCES;
  switch (step) {
    case kPin:
      return fmt::format("cannot pin the benchmark to CPU {}: {}", sys::format_cpulist(cpus), why);
    case kAslr:
      return fmt::format("--no-aslr: personality(ADDR_NO_RANDOMIZE) failed: {}", why);
    case kNice:
      return fmt::format("--nice {}: setpriority failed: {}{}", s.nice.value_or(0), why,
                         denied ? " (a negative nice needs root or CAP_SYS_NICE)" : "");
    case kSlack:
      return fmt::format("--timer-slack {}: prctl(PR_SET_TIMERSLACK) failed: {}", s.timer_slack_ns.value_or(0), why);
    case kCwd:
      return fmt::format("cannot run the benchmark in {}: {}", cwd, why);
    case kFifo:
      return fmt::format("--fifo {}: sched_setscheduler(SCHED_FIFO) failed: {}{}", s.fifo.value_or(0), why,
                         denied ? " (needs root or CAP_SYS_NICE, and a cgroup with a real-time budget)" : "");
  }
  return fmt::format("the benchmark process could not be prepared: {}", why);
}

}  // namespace

std::vector<std::string> benchmark_environment(const BenchmarkSetup& setup, char** caller_env) {
  std::vector<std::string> env;
  if (setup.clean_env) {
    // noisewatch's own protocol goes through: the marker fd of --windows, where Google Benchmark
    // writes the JSON output --windows gbench reads.
    for (std::string_view name : {"PATH=", "HOME=", "NOISEWATCH_MARKER_FD=", "BENCHMARK_OUT=", "BENCHMARK_OUT_FORMAT="})
      for (char** e = caller_env; e && *e; ++e)
        if (std::string_view(*e).substr(0, name.size()) == name) env.emplace_back(*e);
    env.emplace_back("LANG=C");
  } else {
    for (char** e = caller_env; e && *e; ++e) env.emplace_back(*e);
  }
  for (const auto& kv : setup.env) {
    std::string key = kv.substr(0, kv.find('=') + 1);
    std::erase_if(env, [&](const std::string& e) { return e.compare(0, key.size(), key) == 0; });
    env.push_back(kv);
  }
  return env;
}

// What the child needs, prepared by the parent before the clone: the child shares the parent's
// memory and only reads this (and its own stack) until its execve.
struct HeldChild::Spawn {
  std::string path;
  std::vector<std::string> argv, env;
  std::vector<char*> args, sh_args, env_ptrs;
  char** envp = environ;
  cpu_set_t set{};
  bool pin = false;
  sched_param fifo{};
  BenchmarkSetup setup;
  std::string cwd;  // "" keeps noisewatch's
  int go_read = -1, ready_write = -1;
  void* stack = nullptr;
  size_t stack_size = 0;
  ~Spawn() {
    if (stack) munmap(stack, stack_size);
  }
};

namespace {

// The child's side, on its own stack in the parent's memory (clone with CLONE_VM): nothing here
// may allocate, take a lock or write the parent's memory. The libc calls below are thin system
// call wrappers. One shared write remains: a failing call sets errno, which lives in the parent's
// thread-local storage (the child runs with the parent's TLS). Before the ready byte the parent is
// blocked in read() on the ready pipe, which neither reads nor sets errno until it returns; after
// it only a failing execve can set it, in the instant before the child exits 126 or 127.
int held_child_main(void* arg) {
  auto* sp = static_cast<HeldChild::Spawn*>(arg);
  const BenchmarkSetup& setup = sp->setup;
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (sp->pin && sched_setaffinity(0, sizeof(sp->set), &sp->set) != 0) child_fails(sp->ready_write, kPin, errno);
  // Pinned (sched_setaffinity on itself returns once it runs on an allowed CPU): from now on
  // it stays put, so tracking that starts after this cannot see noisewatch's own pinning as
  // a migration of the benchmark.
  if (setup.no_aslr) {
    // The personality survives execve: that is how setarch -R works.
    int current = personality(0xffffffff);
    if (current == -1 || personality(unsigned(current) | ADDR_NO_RANDOMIZE) == -1)
      child_fails(sp->ready_write, kAslr, errno);
  }
  if (setup.nice && setpriority(PRIO_PROCESS, 0, *setup.nice) != 0) child_fails(sp->ready_write, kNice, errno);
  if (setup.fifo && sched_setscheduler(0, SCHED_FIFO, &sp->fifo) != 0) child_fails(sp->ready_write, kFifo, errno);
  // Inherited by every thread and child. (0 would mean "the default" to the kernel, so the
  // option's minimum is 1 ns; real-time tasks get no slack whatever this says.)
  if (setup.timer_slack_ns && prctl(PR_SET_TIMERSLACK, *setup.timer_slack_ns, 0, 0, 0) != 0)
    child_fails(sp->ready_write, kSlack, errno);
  if (!sp->cwd.empty() && chdir(sp->cwd.c_str()) != 0) child_fails(sp->ready_write, kCwd, errno);
  char c = kReady;
  if (write(sp->ready_write, &c, 1) != 1) _exit(125);
  // No handler is installed in the child (signals are at their defaults), so nothing interrupts
  // this read: it returns the release byte, or 0 when noisewatch went away without releasing.
  if (read(sp->go_read, &c, 1) != 1) _exit(125);
  execve(sp->path.c_str(), sp->args.data(), sp->envp);
  int err = errno;
  if (err == ENOEXEC) {
    execve(sp->sh_args[0], sp->sh_args.data(), sp->envp);
    err = errno;
  }
  dprintf(2, "noisewatch: cannot execute %s: %s\n", sp->args[0], strerrordesc_np(err));
  _exit(err == ENOENT ? 127 : 126);
}

}  // namespace

// The child is cloned with CLONE_VM (as posix_spawn does, without its CLONE_VFORK: the child must
// wait for its release while noisewatch goes on): no copy of noisewatch's page tables at the
// fork, no copy-on-write faults in noisewatch after it, and nothing to tear down at the execve.
// With fork() that was ~1 ms per repetition here, and ~0.9 ms more inside the benchmark's own
// timed window (its execve unmapping a copy of noisewatch), against a whole repetition of
// hyperfine's of ~1.9 ms (bench/HISTORY.md).
HeldChild::HeldChild(const std::vector<std::string>& argv, const std::vector<int>& cpus, const BenchmarkSetup& setup,
                     const std::string& cwd)
    : spawn_(std::make_unique<Spawn>()) {
  Spawn& sp = *spawn_;
  int go[2], ready[2];
  if (pipe2(go, O_CLOEXEC) != 0) throw Error(fmt::format("pipe: {}", std::strerror(errno)));
  if (pipe2(ready, O_CLOEXEC) != 0) {
    close(go[0]);
    close(go[1]);
    throw Error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  // The command is looked up here, the way the shell would (execve, not execvp, in the child);
  // a relative path with a '/' is the working directory's, as the child will see it.
  const bool in_cwd = !cwd.empty() && argv.at(0).find('/') != std::string::npos && argv[0][0] != '/';
  auto found = lookup_command(in_cwd ? cwd + "/" + argv[0] : argv.at(0));
  sp.path = found.status == 0 ? found.path : argv[0];
  sp.cwd = cwd;
  sp.argv = argv;
  for (auto& a : sp.argv) sp.args.push_back(a.data());
  sp.args.push_back(nullptr);
  // A script without #! runs under /bin/sh, as execvp would do.
  sp.sh_args = {const_cast<char*>("/bin/sh"), sp.path.data()};
  sp.sh_args.insert(sp.sh_args.end(), sp.args.begin() + 1, sp.args.end());
  if (setup.clean_env || !setup.env.empty()) {
    sp.env = benchmark_environment(setup, environ);
    for (auto& e : sp.env) sp.env_ptrs.push_back(e.data());
    sp.env_ptrs.push_back(nullptr);
    sp.envp = sp.env_ptrs.data();
  }
  CPU_ZERO(&sp.set);
  for (int c : cpus) CPU_SET(c, &sp.set);
  sp.pin = !cpus.empty();
  sp.fifo.sched_priority = setup.fifo.value_or(0);
  sp.setup = setup;
  sp.go_read = go[0];
  sp.ready_write = ready[1];
  // The child's stack: the libc wrappers and dprintf above need a few KiB.
  sp.stack_size = 256 * 1024;
  sp.stack = mmap(nullptr, sp.stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (sp.stack == MAP_FAILED) {
    sp.stack = nullptr;
    for (int fd : {go[0], go[1], ready[0], ready[1]}) close(fd);
    throw Error(fmt::format("cannot start the benchmark: mmap: {}", std::strerror(errno)));
  }

  pid_t pid = clone(held_child_main, static_cast<char*>(sp.stack) + sp.stack_size, CLONE_VM | SIGCHLD, &sp);
  // (The child has its own descriptor table: closing these here leaves its copies open. Nothing
  // in `sp` changes from here on, the child reads it.)
  close(go[0]);
  close(ready[1]);
  if (pid < 0) {
    int err = errno;
    close(go[1]);
    close(ready[0]);
    throw Error(fmt::format("cannot fork the benchmark: {}", std::strerror(err)));
  }
  pid_ = pid;
  go_fd_ = go[1];
  char report[kReportSize] = {};
  size_t got = 0;
  for (;;) {
    ssize_t n = read(ready[0], report + got, got ? sizeof report - got : 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
    if (report[0] == kReady || got == sizeof report) break;
  }
  close(ready[0]);
  if (got == 1 && report[0] == kReady) {
    pidfd_ = int(syscall(SYS_pidfd_open, pid, 0));
    if (pidfd_ < 0) {
      abandon();
      throw Error(fmt::format("pidfd_open: {} (noisewatch needs Linux >= 5.3)", std::strerror(errno)));
    }
    return;
  }
  abandon();
  if (got == sizeof report && report[0] == kFailed) {
    int err;
    std::memcpy(&err, report + 2, sizeof err);
    throw Error(step_message(Step(report[1]), err, cpus, setup, cwd));
  }
  throw Error("the benchmark process could not be prepared (it exited before it was ready)");
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
  // The child reads spawn_ and runs on its stack until its execve: it is killed or reaped first.
  abandon();
  if (pidfd_ >= 0) close(pidfd_);
}

}  // namespace nw::runner
