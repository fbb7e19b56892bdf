// SPDX-License-Identifier: Apache-2.0
/* Sleeps a known total: `nw_sleeper COUNT MICROS [TRUTHFILE]` does COUNT nanosleeps of MICROS each,
 * with a little work between them. The time it chose to be off-CPU is COUNT * MICROS plus the
 * timer slack and however late the timers fire (a busy host delays them by milliseconds). With
 * TRUTHFILE it appends one line, the nanoseconds it spent inside nanosleep by its own clock
 * (CLOCK_MONOTONIC around each call): the ground truth of its blocking. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  int count = argc > 1 ? atoi(argv[1]) : 20;
  long us = argc > 2 ? atol(argv[2]) : 10000;
  volatile unsigned long x = 0;
  long long slept = 0;
  for (int i = 0; i < count; ++i) {
    for (int k = 0; k < 100000; ++k) x += k;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    long long t0 = now_ns();
    nanosleep(&ts, NULL);
    slept += now_ns() - t0;
  }
  if (argc > 3) {
    FILE* f = fopen(argv[3], "a");
    if (!f) return 3;
    fprintf(f, "%lld\n", slept);
    fclose(f);
  }
  return 0;
}
