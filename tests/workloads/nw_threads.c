// SPDX-License-Identifier: Apache-2.0
/* Multi-threaded and multi-process work: `nw_threads THREADS MILLIS` starts THREADS threads and
 * one child process, each spinning MILLIS of CPU time, so tests can check that noise that hits
 * any of them is seen, not only noise on the first pid. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nw_watch.h"

static double ms_arg;

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void* spin(void* arg) {
  (void)arg;
  volatile unsigned long x = 0;
  double start = cpu_ms();
  while (cpu_ms() - start < ms_arg)
    for (int i = 0; i < 10000; ++i) x += i;
  return NULL;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  ms_arg = argc > 2 ? atof(argv[2]) : 100;
  unsigned long long w0 = nw_watched_runtime();
  pid_t child = fork();
  if (child == 0) {
    spin(NULL);
    _exit(0);
  }
  pthread_t t[64];
  if (n > 64) n = 64;
  for (int i = 0; i < n; ++i) pthread_create(&t[i], NULL, spin, NULL);
  for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
  waitpid(child, NULL, 0);
  nw_watch_report(w0);
  return 0;
}
