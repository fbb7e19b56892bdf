// SPDX-License-Identifier: Apache-2.0
/* The accuracy suite's multi-threaded benchmark: `acc_threads THREADS CHUNKS PIDFILE [--spread]`
 * runs THREADS worker threads, each doing CHUNKS chunks of fixed work (acc_chunk.h), while the
 * main thread waits for them in pthread_join. With --spread, worker i is pinned to the i-th CPU
 * the process may use (noisewatch --cpu LIST), so the threads run on several CPUs at once;
 * without it they share whatever CPUs the process got (one, under noisewatch --cpu N) and keep
 * each other waiting: the workload's own contention.
 *
 * The workers start together after the pid is in PIDFILE (the injector's cue to start the
 * repetition's noise). At exit the workload publishes PIDFILE.<pid>.threads, one line per worker:
 *   tid cpu cpu_ns
 * (cpu: the CPU it was pinned to, -1 when not pinned; cpu_ns: its own CPU time), which the
 * injector copies into the ground truth. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "acc_chunk.h"

#define MAX_THREADS 16

struct worker {
  pthread_t thread;
  long chunks;
  int cpu;
  pid_t tid;
  double cpu_ns;
};

static pthread_barrier_t start_line;

static void* work(void* arg) {
  struct worker* w = arg;
  w->tid = (pid_t)syscall(SYS_gettid);
  if (w->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) exit(4);
  }
  pthread_barrier_wait(&start_line);
  double t0 = acc_thread_cpu_ns();
  for (long c = 0; c < w->chunks; ++c) acc_chunk();
  w->cpu_ns = acc_thread_cpu_ns() - t0;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 4 || (argc > 4 && strcmp(argv[4], "--spread"))) {
    fprintf(stderr, "usage: acc_threads THREADS CHUNKS PIDFILE [--spread]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  long chunks = atol(argv[2]);
  const char* pidfile = argv[3];
  int spread = argc > 4;
  if (n < 1 || n > MAX_THREADS || chunks < 1) {
    fprintf(stderr, "acc_threads: THREADS must be 1..%d and CHUNKS positive\n", MAX_THREADS);
    return 2;
  }
  int cpus[CPU_SETSIZE], ncpus = 0;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 4;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[ncpus++] = c;
  if (spread && ncpus < n) {
    fprintf(stderr, "acc_threads: --spread needs %d CPUs, the process may use %d\n", n, ncpus);
    return 2;
  }

  struct worker w[MAX_THREADS];
  memset(w, 0, sizeof w);
  pthread_barrier_init(&start_line, NULL, (unsigned)n + 1);
  for (int i = 0; i < n; ++i) {
    w[i].chunks = chunks;
    w[i].cpu = spread ? cpus[i] : -1;
    if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) return 4;
  }
  char text[4096];
  snprintf(text, sizeof text, "%d\n", (int)getpid());
  if (acc_publish(pidfile, text) != 0) return 3;
  pthread_barrier_wait(&start_line);
  for (int i = 0; i < n; ++i) pthread_join(w[i].thread, NULL);

  size_t len = 0;
  for (int i = 0; i < n; ++i)
    len += (size_t)snprintf(text + len, sizeof text - len, "%d %d %.0f\n", (int)w[i].tid, w[i].cpu, w[i].cpu_ns);
  char path[4096];
  snprintf(path, sizeof path, "%s.%d.threads", pidfile, (int)getpid());
  return acc_publish(path, text) == 0 ? 0 : 3;
}
