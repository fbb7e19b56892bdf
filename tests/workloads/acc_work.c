/* The accuracy suite's benchmark: `acc_work CHUNKS [PIDFILE [TRUTHFILE]]` does a fixed amount of
 * CPU work (CHUNKS loops of 10,000 additions: a fixed instruction count, so every kind of noise,
 * IRQs included, stretches its wall time) and announces itself to the injector by writing its pid
 * to PIDFILE (written to a temporary name and renamed, so a reader never sees half a pid).
 * `acc_work --calibrate MILLIS` prints how many chunks take about MILLIS ms on this CPU (from the
 * fastest of several timed samples, so background noise does not inflate it).
 *
 * Why not CPU time (CLOCK_THREAD_CPUTIME_ID, as nw_spin does): without
 * CONFIG_IRQ_TIME_ACCOUNTING the kernel counts IRQ and softirq time that interrupts a task as the
 * task's own CPU time, so a CPU-time-bounded loop would silently absorb an IRQ storm.
 *
 * Cooperation for the `blocking` scenario: a SIGUSR1 sent with sigqueue() carries a number of
 * microseconds; the workload then sleeps that long itself (nanosleep, the workload's own choice
 * to be off-CPU) before finishing its work. When TRUTHFILE is given, one line is appended at exit:
 *   pid slept_us cpu_ns
 * so the suite knows what the workload really did. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t sleep_request_us = 0;

static void on_usr1(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  if (info->si_code == SI_QUEUE) sleep_request_us = info->si_value.sival_int;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

static void chunk(void) {
  unsigned long x = sink;
  for (int i = 0; i < 10000; ++i) {
    x += (unsigned long)i;
    __asm__ volatile("" : "+r"(x));  /* keep the loop: no vectorising it away */
  }
  sink = x;
}

static int calibrate(double ms) {
  /* Fastest time of 200 chunks over 30 samples: the noise-free speed of this CPU. */
  double best = 1e30;
  for (int s = 0; s < 30; ++s) {
    double t0 = mono_ms();
    for (int c = 0; c < 200; ++c) chunk();
    double t = mono_ms() - t0;
    if (t < best) best = t;
  }
  printf("%ld\n", (long)(ms / (best / 200.0)));
  return 0;
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000}, rem;
  while (nanosleep(&ts, &rem) != 0) ts = rem;
}

int main(int argc, char** argv) {
  if (argc < 2 || (!strcmp(argv[1], "--calibrate") && argc < 3)) {
    fprintf(stderr, "usage: acc_work CHUNKS [PIDFILE [TRUTHFILE]] | acc_work --calibrate MILLIS\n");
    return 2;
  }
  if (!strcmp(argv[1], "--calibrate")) return calibrate(atof(argv[2]));
  long chunks = atol(argv[1]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  if (argc > 2) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", argv[2], (int)getpid());
    FILE* f = fopen(tmp, "w");
    if (!f) return 3;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    if (rename(tmp, argv[2]) != 0) return 3;
  }
  long slept = 0;
  double start = cpu_ms();
  for (long c = 0; c < chunks; ++c) {
    chunk();
    if (sleep_request_us > 0) {
      long us = sleep_request_us;
      sleep_request_us = 0;
      sleep_us(us);
      slept += us;
    }
  }
  if (argc > 3) {
    FILE* f = fopen(argv[3], "a");
    if (f) {
      fprintf(f, "%d %ld %.0f\n", (int)getpid(), slept, (cpu_ms() - start) * 1e6);
      fclose(f);
    }
  }
  return 0;
}
