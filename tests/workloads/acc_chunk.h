// SPDX-License-Identifier: Apache-2.0
/* Shared by the accuracy suite's benchmarks (acc_work, acc_threads): the unit of work, its
 * calibration, and the pidfile handshake with noisewatch_inject.
 *
 * A chunk is 10,000 additions: a fixed instruction count, so every kind of noise, IRQs included,
 * stretches its wall time. Why not CPU time (CLOCK_THREAD_CPUTIME_ID, as nw_spin does): without
 * CONFIG_IRQ_TIME_ACCOUNTING the kernel counts IRQ and softirq time that interrupts a task as the
 * task's own CPU time, so a CPU-time-bounded loop would silently absorb an IRQ storm. */
#ifndef ACC_CHUNK_H
#define ACC_CHUNK_H
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long acc_sink;

static inline void acc_chunk(void) {
  unsigned long x = acc_sink;
  for (int i = 0; i < 10000; ++i) {
    x += (unsigned long)i;
    __asm__ volatile("" : "+r"(x)); /* keep the loop: no vectorising it away */
  }
  acc_sink = x;
}

static inline double acc_mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline double acc_thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Prints how many chunks take about `ms` on this CPU: the fastest time of 200 chunks over 30
 * samples, the noise-free speed (background noise only ever makes a sample slower). */
static inline int acc_calibrate(double ms) {
  double best = 1e30;
  for (int s = 0; s < 30; ++s) {
    double t0 = acc_mono_ms();
    for (int c = 0; c < 200; ++c) acc_chunk();
    double t = acc_mono_ms() - t0;
    if (t < best) best = t;
  }
  printf("%ld\n", (long)(ms / (best / 200.0)));
  return 0;
}

/* Writes `text` to `path` through a temporary name and a rename, so that the injector (which
 * watches the directory with inotify) never reads half of it. Returns 0 on success. */
static inline int acc_publish(const char* path, const char* text) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  FILE* f = fopen(tmp, "w");
  if (!f) return -1;
  int bad = fputs(text, f) < 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) return -1;
  return 0;
}

#endif
