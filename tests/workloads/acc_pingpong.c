// SPDX-License-Identifier: Apache-2.0
/* A context-switch storm for the overhead benchmark: `acc_pingpong ROUNDS [--quiet] [--spin-ns N]`
 * runs two threads that pass a one-byte token back and forth over two pipes ROUNDS times. Pinned
 * to one CPU (noisewatch --cpu, or taskset), every hand-over is a context switch: 2 * ROUNDS
 * switches, each a blocking read on one side and a wakeup on the other. --spin-ns makes each side
 * compute for N ns before handing the token on, for a storm at a chosen rate instead of the
 * highest the machine can switch. Prints its own time and the switch rate (two switches per
 * round trip). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds, spin_ns;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void spin(void) {
  if (!spin_ns) return;
  double until = now_ms() + spin_ns / 1e6;
  while (now_ms() < until) {
  }
}

static void* pong(void* arg) {
  (void)arg;
  char c;
  for (long i = 0; i < rounds; ++i) {
    if (read(ab[0], &c, 1) != 1) exit(3);
    spin();
    if (write(ba[1], &c, 1) != 1) exit(3);
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 100000;
  int quiet = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--quiet")) quiet = 1;
    else if (!strcmp(argv[i], "--spin-ns") && i + 1 < argc) spin_ns = atol(argv[++i]);
    else rounds = 0;
  }
  if (rounds <= 0 || spin_ns < 0 || pipe(ab) || pipe(ba)) {
    fprintf(stderr, "usage: acc_pingpong ROUNDS [--quiet] [--spin-ns N]\n");
    return 2;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, pong, NULL)) return 3;
  char c = 'x';
  double t0 = now_ms();
  for (long i = 0; i < rounds; ++i) {
    spin();
    if (write(ab[1], &c, 1) != 1) return 3;
    if (read(ba[0], &c, 1) != 1) return 3;
  }
  double ms = now_ms() - t0;
  pthread_join(t, NULL);
  if (!quiet)
    printf("acc_pingpong: %ld round trips in %.3f ms: %.0f switches/s\n", rounds, ms, 2.0 * rounds / (ms / 1e3));
  return 0;
}
