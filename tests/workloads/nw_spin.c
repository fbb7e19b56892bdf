// SPDX-License-Identifier: Apache-2.0
/* A CPU-bound workload with a fixed amount of work: `nw_spin MILLIS [PIDFILE]` spins for about
 * MILLIS of CPU time (measured with CLOCK_THREAD_CPUTIME_ID, so preemption makes it take longer
 * in wall time but not in work). Writes its pid to PIDFILE first when given.
 * With NW_WATCH_PID=P and NW_WATCH_OUT=F in the environment it also appends to F the CPU time
 * (ns, from /proc/P/schedstat) that process P consumed while this one ran: the ground truth of
 * how much a competing process could have taken from it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "nw_watch.h"

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  double ms = argc > 1 ? atof(argv[1]) : 100;
  if (argc > 2) {
    FILE* f = fopen(argv[2], "w");
    if (!f) return 3;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
  }
  unsigned long long w0 = nw_watched_runtime();
  volatile unsigned long x = 0;
  double start = cpu_ms();
  while (cpu_ms() - start < ms)
    for (int i = 0; i < 10000; ++i) x += i;
  nw_watch_report(w0);
  return 0;
}
