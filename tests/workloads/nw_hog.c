// SPDX-License-Identifier: Apache-2.0
/* A CPU hog with a known name: `nw_hog SECONDS [CPU]` renames itself "nw_hog" (its comm), pins
 * itself to CPU when given, and busy-loops for SECONDS of wall time. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

int main(int argc, char** argv) {
  double secs = argc > 1 ? atof(argv[1]) : 1;
  prctl(PR_SET_NAME, "nw_hog", 0, 0, 0);
  if (argc > 2) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[2]), &set);
    if (sched_setaffinity(0, sizeof(set), &set)) return 3;
  }
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile unsigned long x = 0;
  do {
    for (int i = 0; i < 100000; ++i) x += i;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
  return 0;
}
