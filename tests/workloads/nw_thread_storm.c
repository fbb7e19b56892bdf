// SPDX-License-Identifier: Apache-2.0
/* A thread storm for the cost benchmark: `nw_thread_storm THREADS [AT_ONCE]` creates and joins
 * THREADS threads, AT_ONCE (default 4) alive at a time, each doing a few microseconds of work.
 * Every thread is a fork, a first wake-up, an exit and a join: what the probe follows per task
 * (task slots, its exit), at a rate no benchmark reaches. Prints the threads made and its own
 * time. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void* work(void* arg) {
  volatile unsigned long x = (unsigned long)arg;
  for (int i = 0; i < 2000; ++i) x = x * 2654435761u + 1;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: nw_thread_storm THREADS [AT_ONCE]\n");
    return 2;
  }
  long total = atol(argv[1]);
  int at_once = argc > 2 ? atoi(argv[2]) : 4;
  if (total < 1 || at_once < 1 || at_once > 64) {
    fprintf(stderr, "nw_thread_storm: THREADS >= 1, 1 <= AT_ONCE <= 64\n");
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t th[64];
  long made = 0;
  while (made < total) {
    int n = 0;
    for (; n < at_once && made + n < total; ++n)
      if (pthread_create(&th[n], NULL, work, (void*)(made + n)) != 0) {
        perror("pthread_create");
        return 1;
      }
    for (int i = 0; i < n; ++i) pthread_join(th[i], NULL);
    made += n;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("threads %ld ms %.3f\n", made, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  return 0;
}
