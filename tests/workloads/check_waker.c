// SPDX-License-Identifier: Apache-2.0
/* A periodic noise source for the `check` noise-ranking test: pinned to one CPU, it wakes every
 * PERIOD_US microseconds, works BUSY_US microseconds, and sleeps again, for SECONDS seconds.
 * Each wake-up preempts whatever spins on that CPU, like a frequent interrupt would.
 *
 *   check_waker CPU [PERIOD_US=100] [BUSY_US=10] [SECONDS=10] [FIFO_PRIORITY=0]
 *
 * With FIFO_PRIORITY > 0 it runs SCHED_FIFO at that priority (root), so it preempts even
 * real-time spinners.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CPU [PERIOD_US] [BUSY_US] [SECONDS]\n", argv[0]);
    return 2;
  }
  int cpu = atoi(argv[1]);
  long period_us = argc > 2 ? atol(argv[2]) : 100;
  long busy_us = argc > 3 ? atol(argv[3]) : 10;
  double seconds = argc > 4 ? atof(argv[4]) : 10;
  int fifo = argc > 5 ? atoi(argv[5]) : 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    fprintf(stderr, "check_waker: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
    return 1;
  }
  if (fifo > 0) {
    struct sched_param sp = {.sched_priority = fifo};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
      fprintf(stderr, "check_waker: cannot run SCHED_FIFO %d: %s\n", fifo, strerror(errno));
      return 1;
    }
  }
  uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  while (now_ns() < end) {
    next.tv_nsec += period_us * 1000;
    while (next.tv_nsec >= 1000000000) {
      next.tv_nsec -= 1000000000;
      next.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    uint64_t stop = now_ns() + (uint64_t)busy_us * 1000;
    while (now_ns() < stop) {
    }
  }
  return 0;
}
