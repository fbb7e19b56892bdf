// SPDX-License-Identifier: Apache-2.0
/* The accuracy suite's benchmark: `acc_work CHUNKS [PIDFILE [TRUTHFILE]]` does a fixed amount of
 * CPU work (CHUNKS chunks, see acc_chunk.h) and announces itself to the injector by writing its
 * pid to PIDFILE. `acc_work --calibrate MILLIS` prints how many chunks take about MILLIS ms on
 * this CPU.
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

#include "acc_chunk.h"

static volatile sig_atomic_t sleep_request_us = 0;

static void on_usr1(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  if (info->si_code == SI_QUEUE) sleep_request_us = info->si_value.sival_int;
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
  if (!strcmp(argv[1], "--calibrate")) return acc_calibrate(atof(argv[2]));
  long chunks = atol(argv[1]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  if (argc > 2) {
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (acc_publish(argv[2], pid) != 0) return 3;
  }
  long slept = 0;
  double start = acc_thread_cpu_ns();
  for (long c = 0; c < chunks; ++c) {
    acc_chunk();
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
      fprintf(f, "%d %ld %.0f\n", (int)getpid(), slept, acc_thread_cpu_ns() - start);
      fclose(f);
    }
  }
  return 0;
}
