// SPDX-License-Identifier: Apache-2.0
/* A memory-bound benchmark with a fixed amount of work: `nw_membench MB PASSES` streams PASSES
 * times over an MB-megabyte buffer (reading one word per cache line, so the memory bandwidth it
 * gets sets its speed). With NW_NEIGHBOUR_PID=P and NW_NEIGHBOUR_RUNS=FILE in the environment it
 * switches neighbour P on (SIGUSR1) for the length of its work in every other run and off
 * (SIGUSR2) at the end: FILE counts the runs (one line each). The neighbour is then busy in
 * exactly the odd runs, whatever else the machine does. With NW_EXTRA_PASSES=K it also makes K
 * more passes in the odd runs (NW_NEIGHBOUR_PID may then be absent): slow runs of its own doing. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The number of runs before this one (lines in FILE), and one line more for this one. */
static long count_run(const char* file) {
  long runs = 0;
  FILE* f = fopen(file, "a+");
  if (!f) return -1;
  for (int c; (c = fgetc(f)) != EOF;) runs += c == '\n';
  fputs("run\n", f);
  fclose(f);
  return runs;
}

int main(int argc, char** argv) {
  size_t bytes = (size_t)(argc > 1 ? atof(argv[1]) : 64) << 20;
  int passes = argc > 2 ? atoi(argv[2]) : 10;
  const char* pid_text = getenv("NW_NEIGHBOUR_PID");
  const char* runs_file = getenv("NW_NEIGHBOUR_RUNS");
  pid_t neighbour = pid_text ? (pid_t)atoi(pid_text) : 0;
  int extra = getenv("NW_EXTRA_PASSES") ? atoi(getenv("NW_EXTRA_PASSES")) : 0;
  size_t n = bytes / sizeof(unsigned long);
  unsigned long* buf = malloc(n * sizeof *buf);
  if (!buf) return 4;
  memset(buf, 1, n * sizeof *buf);
  int busy = 0;
  if (runs_file) {
    long run = count_run(runs_file);
    if (run < 0) return 5;
    busy = run % 2 == 1;
    if (busy && neighbour > 0 && kill(neighbour, SIGUSR1)) return 6;
    if (busy) passes += extra;
  }
  volatile unsigned long sum = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; i += 8) sum += buf[i];
  if (busy && neighbour > 0) kill(neighbour, SIGUSR2);
  return 0;
}
