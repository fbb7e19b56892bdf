// SPDX-License-Identifier: Apache-2.0
/* A memory-bandwidth neighbour with a known name: `nw_stream MB CPU [PERIOD_S]` renames itself
 * "nw_stream", pins itself to CPU and streams over an MB-megabyte buffer (read, modify, write)
 * while it is switched on, sleeping while it is off. With PERIOD_S it switches itself on and off
 * every PERIOD_S seconds (the neighbour of issue #24 §4); without it, SIGUSR1 switches it on and
 * SIGUSR2 off (so a benchmark can make it busy in exactly the runs it chooses: nw_membench). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t on;
static void switch_on(int sig) {
  (void)sig;
  on = 1;
}
static void switch_off(int sig) {
  (void)sig;
  on = 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  size_t bytes = (size_t)(argc > 1 ? atof(argv[1]) : 256) << 20;
  prctl(PR_SET_NAME, "nw_stream", 0, 0, 0);
  if (argc > 2) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[2]), &set);
    if (sched_setaffinity(0, sizeof(set), &set)) return 3;
  }
  double period = argc > 3 ? atof(argv[3]) : 0;
  size_t n = bytes / sizeof(unsigned long);
  unsigned long* buf = malloc(n * sizeof *buf);
  if (!buf) return 4;
  /* The handlers first: a switch-on while the buffer is being touched must not kill it. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = switch_on;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_handler = switch_off;
  sigaction(SIGUSR2, &sa, NULL);
  memset(buf, 1, n * sizeof *buf); /* touch every page now, not while streaming */
  /* Switching off takes effect within one chunk (1 MiB): the neighbour stops when told. */
  const size_t chunk = (1u << 20) / sizeof(unsigned long);
  size_t at = 0;
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  double t0 = now_s();
  for (;;) {
    if (period > 0) on = ((long)((now_s() - t0) / period)) % 2 == 0;
    if (on) {
      for (size_t i = 0; i < chunk; i += 8) buf[(at + i) % n] += i; /* one word per 64-byte line: bandwidth, not ALU */
      at = (at + chunk) % n;
    } else if (period > 0) {
      usleep(1000);
    } else {
      /* Blocked between the test and the sleep, so a switch-on in between is not lost. */
      sigset_t old;
      sigprocmask(SIG_BLOCK, &both, &old);
      if (!on) sigsuspend(&old);
      sigprocmask(SIG_SETMASK, &old, NULL);
    }
  }
}
