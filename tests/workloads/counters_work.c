// SPDX-License-Identifier: Apache-2.0
// Workload with known amounts of each kind of event, for the counter end-to-end tests:
//   counters_work SPIN_MS SLEEPS PAGES THREADS CHILDREN
// Every one of THREADS threads (the main thread included) and every one of CHILDREN forked
// processes burns SPIN_MS of its own CPU time; the main thread then sleeps SLEEPS times for
// 1 ms (one voluntary context switch each) and writes one byte into each of PAGES fresh pages
// of an anonymous mapping with huge pages disabled (one minor page fault each).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long spin_ms;

static double thread_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void* spin(void* arg) {
  (void)arg;
  volatile unsigned long x = 0;
  double start = thread_cpu_ms();
  while (thread_cpu_ms() - start < (double)spin_ms)
    for (int i = 0; i < 10000; ++i) x += (unsigned long)i;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s SPIN_MS SLEEPS PAGES THREADS CHILDREN\n", argv[0]);
    return 2;
  }
  spin_ms = atol(argv[1]);
  long sleeps = atol(argv[2]), pages = atol(argv[3]);
  int threads = atoi(argv[4]), children = atoi(argv[5]);

  for (int c = 0; c < children; ++c) {
    pid_t pid = fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      spin(NULL);
      _exit(0);
    }
  }
  pthread_t tids[64];
  if (threads < 1 || threads > 64) return 2;
  for (int t = 1; t < threads; ++t) pthread_create(&tids[t], NULL, spin, NULL);
  spin(NULL);
  for (int t = 1; t < threads; ++t) pthread_join(tids[t], NULL);
  for (int c = 0; c < children; ++c) wait(NULL);

  struct timespec ms = {0, 1000000};
  for (long s = 0; s < sleeps; ++s) nanosleep(&ms, NULL);

  if (pages > 0) {
    long page = sysconf(_SC_PAGESIZE);
    char* mem = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return 4;
    madvise(mem, (size_t)(pages * page), MADV_NOHUGEPAGE);
    for (long p = 0; p < pages; ++p) mem[p * page] = 1;
    munmap(mem, (size_t)(pages * page));
  }
  return 0;
}
