// SPDX-License-Identifier: Apache-2.0
/* A benchmark that marks its windows with the USDT markers (include/noisewatch/markers.h):
 *   nw_windows WINDOWS CHUNKS [TRUTHFILE]
 * Each window does CHUNKS loops of 10,000 additions (fixed CPU work), labelled with its number.
 * With NW_WATCH_PID set (a stopped CPU hog on the benchmark's CPU), the hog is continued for the
 * odd windows and stopped again (and waited for) before the next one: noise in alternate windows.
 * With TRUTHFILE, one line per window: "k inner_ns outer_ns", the hog's CPU time (schedstat)
 * between just after the begin marker and just before the end marker, and between just before
 * the begin and just after the end: the ground truth the probe's charge must lie between.
 * With NW_NO_MARKS set it marks nothing (the error case). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <noisewatch/markers.h>

#include "nw_watch.h"

int main(int argc, char** argv) {
  int windows = argc > 1 ? atoi(argv[1]) : 10;
  long chunks = argc > 2 ? atol(argv[2]) : 3000;
  const char* hog = getenv("NW_WATCH_PID");
  int marks = getenv("NW_NO_MARKS") == NULL;
  FILE* truth = argc > 3 ? fopen(argv[3], "a") : NULL;
  volatile unsigned long x = 0;
  for (int k = 0; k < windows; ++k) {
    int noisy = hog && (k % 2 == 1);
    if (noisy) kill(atoi(hog), SIGCONT);
    unsigned long long o0 = hog ? nw_watched_runtime() : 0;
    if (marks) NOISEWATCH_WINDOW_BEGIN_LABEL(k);
    unsigned long long h0 = hog ? nw_watched_runtime() : 0;
    for (long c = 0; c < chunks; ++c)
      for (int i = 0; i < 10000; ++i) x += i;
    unsigned long long h1 = hog ? nw_watched_runtime() : 0;
    if (marks) NOISEWATCH_WINDOW_END();
    unsigned long long o1 = hog ? nw_watched_runtime() : 0;
    if (noisy) {
      kill(atoi(hog), SIGSTOP);
      wait_stopped(hog);
    }
    if (truth) fprintf(truth, "%d %llu %llu\n", k, h1 - h0, o1 - o0);
  }
  if (truth) fclose(truth);
  return 0;
}
