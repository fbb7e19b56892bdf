// SPDX-License-Identifier: Apache-2.0
// A benchmark harness with no markers, for --windows-at: `nw_calls CALLS CHUNKS [TRUTHFILE]`.
// main() calls work::step CALLS times; each call does CHUNKS loops of 10,000 additions and calls
// itself once more (a nested call, inside the outer one's window). With NW_WATCH_PID set (a
// stopped CPU hog on the benchmark's CPU), the hog is continued for the odd calls and stopped
// again before the next one. With TRUTHFILE, one line per call: "k ns inner_hog_ns outer_hog_ns",
// the call's duration (CLOCK_MONOTONIC, read around it) and the hog's CPU time from just inside
// the outer call and from just outside it: what the probe charges the window lies between.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nw_watch.h"

namespace work {

volatile unsigned long sink;
unsigned long long inner_hog;  // the hog's CPU time inside the last outer call

__attribute__((noinline)) void step(int depth, long chunks) {
  const bool outer = depth == 1;
  unsigned long long h0 = outer ? nw_watched_runtime() : 0;
  for (long c = 0; c < chunks; ++c)
    for (int i = 0; i < 10000; ++i) sink = sink + unsigned(i);
  if (depth > 0) step(depth - 1, chunks / 4);
  if (outer) inner_hog = nw_watched_runtime() - h0;
  asm volatile("" ::: "memory");  // not a tail call: the nested call returns here
}

}  // namespace work

static unsigned long long now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

int main(int argc, char** argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 10;
  long chunks = argc > 2 ? atol(argv[2]) : 3000;
  FILE* truth = argc > 3 ? fopen(argv[3], "a") : nullptr;
  const char* hog = getenv("NW_WATCH_PID");
  for (int k = 0; k < calls; ++k) {
    bool noisy = hog && k % 2 == 1;
    if (noisy) kill(atoi(hog), SIGCONT);
    unsigned long long h0 = nw_watched_runtime(), t0 = now_ns();
    work::step(1, chunks);
    unsigned long long t1 = now_ns(), h1 = nw_watched_runtime();
    if (noisy) {
      kill(atoi(hog), SIGSTOP);
      wait_stopped(hog);
    }
    if (truth) fprintf(truth, "%d %llu %llu %llu\n", k, t1 - t0, work::inner_hog, h1 - h0);
  }
  if (truth) fclose(truth);
  return 0;
}
