// SPDX-License-Identifier: Apache-2.0
// Helpers for end-to-end tests of the real noisewatch binary.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/record_fields.h"

namespace nw::e2e {

inline std::string bin(const std::string& name) { return std::string(NW_BINARY_DIR) + "/" + name; }
inline std::string noisewatch() { return bin("noisewatch"); }

struct Proc {
  int status = -1;  // exit status as the shell reports it
  std::string out, err;
};

inline std::string slurp_fd(int fd) {
  std::string s;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, size_t(n));
  return s;
}

inline std::string temp_path(const std::string& stem) {
  static int counter = 0;
  return "/tmp/nw-e2e-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" + stem;
}

// Starts argv with stdout/stderr going to files; returns the pid.
inline pid_t spawn(const std::vector<std::string>& argv, const std::string& out_file, const std::string& err_file) {
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  return pid;
}

inline int shell_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

inline Proc run(const std::vector<std::string>& argv) {
  std::string o = temp_path("out"), e = temp_path("err");
  pid_t pid = spawn(argv, o, e);
  int st = 0;
  waitpid(pid, &st, 0);
  Proc p{shell_status(st), test::slurp(o), test::slurp(e)};
  unlink(o.c_str());
  unlink(e.c_str());
  return p;
}

// `noisewatch run` pinned to CPU 1, no warm-up, quiet, the record written to `json`: the form
// most run tests use. `bench` is the benchmark's command line.
inline Proc run_recorded(const std::string& json, int runs, const std::vector<std::string>& bench) {
  std::vector<std::string> argv{noisewatch(), "--cpu",  "1",  "--runs", std::to_string(runs), "--warmup", "0",
                                "-q",         "--json", json, "--"};
  argv.insert(argv.end(), bench.begin(), bench.end());
  return run(argv);
}

// What a shell command line prints on stdout ("" when it cannot be started).
inline std::string capture_output(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// A copy of a workload under a name no other process on the machine has (other tests may run
// the same workloads at the same time, and their time is rightly preemption): `c<pid><tag>`.
struct UniqueCopy {
  std::string dir, path, comm;
  UniqueCopy(const std::string& binary, const std::string& tag) {
    char tmpl[] = "/tmp/nw-e2e-copy-XXXXXX";
    dir = mkdtemp(tmpl);
    comm = "c" + std::to_string(getpid()) + tag;
    path = dir + "/" + comm;
    if (run({"/bin/cp", binary, path}).status != 0) throw std::runtime_error("cannot copy " + binary);
  }
  ~UniqueCopy() {
    unlink(path.c_str());
    rmdir(dir.c_str());
  }
};

// A hog on CPU 1, stopped: the benchmark continues it for its odd windows (NW_WATCH_PID). Its weight (nice -10)
// is above the benchmark's so that, on a machine shared with other work, it is the main noise.
struct StoppedHog {
  pid_t pid;
  StoppedHog() {
    pid = spawn({bin("nw_hog"), "300", "1"}, "/dev/null", "/dev/null");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    kill(pid, SIGSTOP);
    setpriority(PRIO_PROCESS, id_t(pid), -10);
    setenv("NW_WATCH_PID", std::to_string(pid).c_str(), 1);
  }
  ~StoppedHog() {
    unsetenv("NW_WATCH_PID");
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

inline nlohmann::json load_json(const std::string& path) { return nlohmann::json::parse(test::slurp(path)); }

// The names of the BPF programs currently loaded (bpftool prog show).
inline std::string loaded_bpf_programs() {
  Proc p = run({"/usr/sbin/bpftool", "prog", "show"});
  if (p.status != 0) p = run({"/usr/bin/bpftool", "prog", "show"});
  return p.out;
}

}  // namespace nw::e2e
