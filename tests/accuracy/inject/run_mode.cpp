// SPDX-License-Identifier: Apache-2.0
#include "tests/accuracy/inject/run_mode.h"

#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "tests/accuracy/inject/injections.h"
#include "tests/accuracy/inject/irq_target.h"
#include "tests/accuracy/inject/proc_util.h"

namespace nw::inject {

namespace {

using nlohmann::json;

int pidfd_open(pid_t pid) { return int(syscall(SYS_pidfd_open, pid, 0)); }

// One line per worker thread of a benchmark that publishes PIDFILE.<pid>.threads at exit
// (acc_threads): "tid cpu cpu_ns".
json read_threads_file(const std::string& path) {
  json threads = json::array();
  std::istringstream in(read_file(path));
  long tid, cpu;
  double cpu_ns;
  while (in >> tid >> cpu >> cpu_ns) threads.push_back({{"tid", tid}, {"cpu", cpu}, {"cpu_ns", cpu_ns}});
  return threads;
}

class Injector {
 public:
  explicit Injector(RunOptions o) : o_(std::move(o)) {}
  int run();

 private:
  bool injected(int rep) const;
  void start_rep(pid_t pid);
  void finish_rep();
  void on_pidfile_event(int ifd, const std::string& base);
  void on_signals(int sfd);
  void write(const json& j) {
    if (truth_) truth_ << j.dump() << "\n" << std::flush;
  }

  RunOptions o_;
  std::ofstream truth_;
  int storm_fd_ = -1, rep_ = -1, sleep_idx_ = 0, injected_reps_ = 0, signals_seen_ = 0;
  pid_t cmd_ = -1, bench_ = -1;
  int bench_fd_ = -1;
  uint64_t bench_t0_ = 0, irq0_ = 0;
  std::unique_ptr<Noise> noise_;
  json cur_;
};

bool Injector::injected(int rep) const {
  int j = rep - o_.warmup;
  if (j < 0 || o_.scenario->injection == Injection::none || o_.pattern == "none") return false;
  if (o_.pattern == "all") return true;
  return j % 2 == 1;  // alternate: measured repetitions 1, 3, 5, ...
}

void Injector::finish_rep() {
  if (bench_ < 0) return;
  if (noise_) {
    noise_->stop(cur_);
    noise_.reset();
  }
  cur_["observed_ms"] = double(now_ns() - bench_t0_) / 1e6;
  if (o_.scenario->injection == Injection::irq_storm) cur_["irq_on_target"] = irq_count_on(o_.irq, o_.cpu) - irq0_;
  std::string threads = o_.pidfile + "." + std::to_string(bench_) + ".threads";
  if (access(threads.c_str(), F_OK) == 0) {
    cur_["threads"] = read_threads_file(threads);
    unlink(threads.c_str());
  }
  write(cur_);
  if (bench_fd_ >= 0) close(bench_fd_);
  bench_fd_ = -1;
  bench_ = -1;
}

void Injector::start_rep(pid_t pid) {
  finish_rep();
  ++rep_;
  bench_ = pid;
  bench_t0_ = now_ns();
  bench_fd_ = pidfd_open(pid);
  bool inject = injected(rep_) && bench_fd_ >= 0;
  cur_ = json{{"rep", rep_}, {"pid", pid}, {"injected", inject}};
  // The benchmark's own comms: its threads, and the processes between it and the command the
  // injector started (wrapper shells). The scorer checks none of them is ever called preemption.
  std::set<std::string> own;
  for (const auto& c : thread_comms(pid)) own.insert(c);
  std::vector<std::string> above;
  pid_t p = parent_of(pid);
  for (; p > 1 && p != cmd_; p = parent_of(p)) above.push_back(comm_of(p));
  if (p == cmd_) own.insert(above.begin(), above.end());  // else not below the command: not the benchmark's
  own.erase("");
  cur_["own_comms"] = own;
  if (o_.scenario->injection == Injection::irq_storm) irq0_ = irq_count_on(o_.irq, o_.cpu);
  // Migrations the kernel counted for this process before its main() wrote the pidfile: moves
  // between fork and exec, i.e. the runner's own pinning, not the benchmark's noise.
  if (o_.scenario->injection == Injection::migrations)
    if (auto m = nr_migrations(pid)) cur_["kernel_nr_migrations_before_main"] = *m;
  if (!inject) return;
  ++injected_reps_;
  switch (o_.scenario->injection) {
    case Injection::cpu_hog:
      noise_ = start_cpu_hog(o_.cpu);
      break;
    case Injection::timer_storm:
      noise_ = start_timer_storm(o_.cpu, o_.period_us);
      break;
    case Injection::irq_storm:
      noise_ = start_io_storm(storm_fd_, o_.other_cpu, o_.io_threads);
      break;
    case Injection::migrations:
      noise_ = start_mover(pid, o_.cpu, o_.other_cpu, o_.moves, o_.move_ms);
      break;
    case Injection::blocking: {
      int ms = o_.sleep_ms[size_t(sleep_idx_++) % o_.sleep_ms.size()];
      sigval v;
      v.sival_int = ms * 1000;
      cur_["sleep_us_requested"] = ms * 1000;
      cur_["signalled"] = sigqueue(pid, SIGUSR1, v) == 0;
      break;
    }
    case Injection::none:
      break;
  }
}

void Injector::on_pidfile_event(int ifd, const std::string& base) {
  alignas(inotify_event) char buf[4096];
  ssize_t len;
  bool changed = false;
  while ((len = read(ifd, buf, sizeof buf)) > 0)
    for (char* p = buf; p < buf + len;) {
      auto* ev = reinterpret_cast<inotify_event*>(p);
      if (ev->len && base == ev->name) changed = true;
      p += sizeof(inotify_event) + ev->len;
    }
  if (!changed) return;
  std::string s = read_file(o_.pidfile);
  pid_t pid = s.empty() ? -1 : pid_t(std::atoi(s.c_str()));
  if (pid > 0 && pid != bench_) start_rep(pid);
}

void Injector::on_signals(int sfd) {
  signalfd_siginfo si;
  while (read(sfd, &si, sizeof si) == ssize_t(sizeof si)) {
    if (si.ssi_signo == SIGCHLD) continue;
    // Stop injecting at once, restore, and let the command end cleanly (noisewatch writes a
    // partial report on SIGINT); a second signal kills it.
    if (noise_) {
      noise_->stop(cur_);
      noise_.reset();
    }
    restore_irq_affinity();
    kill(cmd_, ++signals_seen_ > 1 ? SIGKILL : int(si.ssi_signo));
  }
}

int Injector::run() {
  // Signals: handled synchronously through a signalfd; the command gets them forwarded.
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&mask, s);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die("signalfd failed");

  json setup = {{"scenario", o_.scenario->name},
                {"cpu", o_.cpu},
                {"other_cpu", o_.other_cpu},
                {"warmup", o_.warmup},
                {"pattern", o_.pattern}};
  if (o_.scenario->injection == Injection::irq_storm)
    storm_fd_ = prepare_irq_storm(o_.irq, o_.cpu, o_.other_cpu, o_.dir, setup);
  if (!o_.truth.empty()) {
    truth_.open(o_.truth, std::ios::trunc);
    if (!truth_) die("cannot write " + o_.truth);
  }
  write(json{{"setup", setup}});

  // Watch the pidfile's directory before starting the command.
  unlink(o_.pidfile.c_str());
  std::string dir = ".", base = o_.pidfile;
  if (auto slash = o_.pidfile.rfind('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : o_.pidfile.substr(0, slash);
    base = o_.pidfile.substr(slash + 1);
  }
  int ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (ifd < 0 || inotify_add_watch(ifd, dir.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
    die("cannot watch " + dir + ": " + std::strerror(errno));

  cmd_ = fork();
  if (cmd_ == 0) {
    sigprocmask(SIG_UNBLOCK, &mask, nullptr);
    std::vector<char*> a;
    for (auto& s : o_.command) a.push_back(s.data());
    a.push_back(nullptr);
    execvp(a[0], a.data());
    std::fprintf(stderr, "noisewatch_inject: cannot execute %s: %s\n", a[0], std::strerror(errno));
    _exit(127);
  }
  int cmd_fd = pidfd_open(cmd_);
  if (cmd_fd < 0) die(std::string("pidfd_open failed: ") + std::strerror(errno));

  for (bool cmd_done = false; !cmd_done;) {
    pollfd fds[4] = {{sfd, POLLIN, 0}, {ifd, POLLIN, 0}, {cmd_fd, POLLIN, 0}, {bench_fd_, POLLIN, 0}};
    int n = poll(fds, bench_fd_ >= 0 ? 4 : 3, 1000);
    if (n < 0 && errno != EINTR) break;
    // The repetition that ended first, then the one that started: both can be reported by one
    // poll, and the new repetition's pidfd may reuse the old one's number.
    if (bench_fd_ >= 0 && (fds[3].revents & (POLLIN | POLLHUP))) finish_rep();
    if (fds[1].revents & POLLIN) on_pidfile_event(ifd, base);
    if (fds[0].revents & POLLIN) on_signals(sfd);
    if (fds[2].revents & POLLIN) cmd_done = true;
  }
  int status = 0;
  waitpid(cmd_, &status, 0);
  finish_rep();
  restore_irq_affinity();
  if (storm_fd_ >= 0) close(storm_fd_);
  unlink(o_.pidfile.c_str());
  write(json{{"end", {{"reps", rep_ + 1}, {"injected_reps", injected_reps_}, {"interrupted", signals_seen_ > 0}}}});
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 125;
}

}  // namespace

int run_mode(RunOptions o) {
  if (o.cpu < 0 || o.pidfile.empty() || o.command.empty()) die("--cpu, --pidfile and a command after -- are required");
  int ncpu = int(sysconf(_SC_NPROCESSORS_ONLN));
  if (o.cpu >= ncpu) die("--cpu " + std::to_string(o.cpu) + " is not online");
  if (o.other_cpu < 0) o.other_cpu = o.cpu == 0 ? 1 : 0;
  if (o.other_cpu == o.cpu || o.other_cpu >= ncpu) die("--other-cpu must be another online CPU");
  if (o.sleep_ms.empty()) die("--sleep-ms needs at least one value");
  return Injector(std::move(o)).run();
}

}  // namespace nw::inject
