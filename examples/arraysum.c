// SPDX-License-Identifier: Apache-2.0
/* The demo benchmark: the array-sum kernel from the benchmark-tuning literature.
 * One execution is one repetition: it sums an array of 4096 doubles in bursts of 256 sums,
 * sleeping briefly between bursts (so the CPU can be taken away and the caches go cold, as in
 * a real service loop), and prints its own time. Its work is fixed, so any run-to-run spread is
 * the machine's doing.
 *
 *   arraysum [--bursts N] [--gap-us US] [--quiet]     defaults: 40 bursts, 200 us gaps
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 4096, BURST = 256 };

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  int bursts = 40, gap_us = 200, quiet = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--bursts") && i + 1 < argc) bursts = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--gap-us") && i + 1 < argc) gap_us = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quiet")) quiet = 1;
    else {
      fprintf(stderr, "usage: arraysum [--bursts N] [--gap-us US] [--quiet]\n");
      return 2;
    }
  }
  static double a[N];
  for (int i = 0; i < N; ++i) a[i] = (double)i * 0.5;
  volatile double sink = 0;
  double start = now_ms(), busy = 0;
  for (int b = 0; b < bursts; ++b) {
    double t0 = now_ms();
    for (int r = 0; r < BURST; ++r) {
      double s = 0;
      for (int i = 0; i < N; ++i) s += a[i];
      sink += s;
    }
    busy += now_ms() - t0;
    if (gap_us > 0) {
      struct timespec gap = {0, gap_us * 1000L};
      nanosleep(&gap, NULL);
    }
  }
  double total = now_ms() - start;
  if (!quiet)
    printf("arraysum: %d bursts of %d sums of %d doubles: %.3f ms busy, %.3f ms total\n", bursts, BURST, N, busy,
           total);
  return sink == 42.0; /* never true; keeps the sums alive */
}
