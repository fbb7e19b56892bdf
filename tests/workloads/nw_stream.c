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
static void switch_on(int sig) { (void)sig; on = 1; }
static void switch_off(int sig) { (void)sig; on = 0; }

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
  memset(buf, 1, n * sizeof *buf);  /* touch every page now, not while streaming */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = switch_on;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_handler = switch_off;
  sigaction(SIGUSR2, &sa, NULL);
  /* Blocked except inside sigsuspend, so a switch-on between the test and the sleep is not lost. */
  sigset_t block, wait_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGUSR2);
  sigprocmask(SIG_BLOCK, &block, &wait_mask);
  sigdelset(&wait_mask, SIGUSR1);
  sigdelset(&wait_mask, SIGUSR2);
  double t0 = now_s();
  for (;;) {
    if (period > 0) {
      on = ((long)((now_s() - t0) / period)) % 2 == 0;
    } else if (!on) {
      sigsuspend(&wait_mask);
      continue;
    }
    if (on) {
      for (size_t i = 0; i < n; i += 8) buf[i] += i;  /* one word per 64-byte line: bandwidth, not ALU */
      /* Signals pending while streaming are taken here, between passes. */
      sigprocmask(SIG_UNBLOCK, &block, NULL);
      sigprocmask(SIG_BLOCK, &block, NULL);
    } else {
      usleep(1000);
    }
  }
}
