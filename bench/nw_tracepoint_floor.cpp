// SPDX-License-Identifier: Apache-2.0
// nw_tracepoint_floor -- CMD [ARGS...]: runs CMD with empty eBPF programs attached to the
// tracepoints of bench/'s storms (bpf/tracepoint_floor.bpf.c: sched_switch, sched_wakeup, hard and
// soft IRQ entry and exit, sched_migrate_task; and programs that only read the clock on the IRQ
// tracepoints), so bench/overhead.sh and program_cost.sh can show how much of noisewatch's
// event-storm cost is the kernel's price for any program there. Exits with
// CMD's status; the programs go with this process (links are file descriptors).
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tracepoint_floor.skel.h"

int main(int argc, char** argv) {
  int first = 1;
  if (first < argc && std::strcmp(argv[first], "--") == 0) ++first;
  if (first >= argc) {
    std::fprintf(stderr, "usage: nw_tracepoint_floor -- CMD [ARGS...]\n");
    return 125;
  }
  auto* skel = tracepoint_floor_bpf__open_and_load();
  if (!skel) {
    std::fprintf(stderr, "nw_tracepoint_floor: cannot load the eBPF programs (%s): run as root\n",
                 std::strerror(errno));
    return 125;
  }
  if (tracepoint_floor_bpf__attach(skel)) {
    std::fprintf(stderr, "nw_tracepoint_floor: cannot attach the eBPF programs\n");
    tracepoint_floor_bpf__destroy(skel);
    return 125;
  }
  pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[first], argv + first);
    std::fprintf(stderr, "nw_tracepoint_floor: %s: %s\n", argv[first], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  tracepoint_floor_bpf__destroy(skel);
  if (pid < 0) return 125;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
