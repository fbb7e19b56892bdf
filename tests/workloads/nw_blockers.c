// SPDX-License-Identifier: Apache-2.0
/* Benchmarks that block for a known reason, for the blocking-by-cause end-to-end tests:
 *   nw_blockers sleep COUNT MICROS      COUNT nanosleeps (a timer ends each: blocking:sleep)
 *   nw_blockers read FILE COUNT         COUNT 4 KiB O_DIRECT reads at scattered offsets of FILE
 *                                       (the disk's IRQ ends each: blocking:io:<its IRQ>); exits 3
 *                                       when FILE's file system has no O_DIRECT (tmpfs)
 *   nw_blockers serve REQ RESP SPIN_US  a server, run outside the benchmark: for every byte read
 *                                       from the FIFO REQ, computes SPIN_US and writes one byte to
 *                                       the FIFO RESP; named nw_server; ends at EOF
 *   nw_blockers ask REQ RESP COUNT      the benchmark as its client: COUNT requests, each waiting
 *                                       for the server's answer (the server ends each wait:
 *                                       blocking:wait:nw_server)
 *   nw_blockers pingpong COUNT          two threads of the benchmark handing a turn over with a
 *                                       mutex and a condition variable COUNT times: they wait on
 *                                       each other, never all at once (no blocking)
 *   nw_blockers tick FIFO PERIOD_US CPU a timer-driven waker, run outside the benchmark, pinned to
 *                                       CPU: writes one byte to FIFO every PERIOD_US; named
 *                                       nw_ticker; reopens FIFO when its reader goes
 *   nw_blockers take FIFO COUNT SPIN_US the benchmark as its reader: COUNT bytes, each followed by
 *                                       SPIN_US of work (the ticker ends each wait)
 *   nw_blockers nap PERIOD_US CPU       a sleeper, run outside the benchmark, pinned to CPU: wakes
 *                                       every PERIOD_US and sleeps again at once (takes a CPU's
 *                                       benchmark off it briefly and often); named nw_ticker */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void spin_us(double us) {
  double until = now_us() + us;
  while (now_us() < until) {
  }
}

static int sleeps(long count, long us) {
  for (long i = 0; i < count; ++i) {
    spin_us(20);
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
  }
  return 0;
}

static int reads(const char* path, long count) {
  int fd = open(path, O_RDONLY | O_DIRECT);
  if (fd < 0) {
    perror(path);
    return 3;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 4096) return 2;
  long blocks = st.st_size / 4096;
  void* buf = NULL;
  if (posix_memalign(&buf, 4096, 4096)) return 2;
  for (long i = 0; i < count; ++i)
    if (pread(fd, buf, 4096, ((i * 7919) % blocks) * 4096) != 4096) {
      perror("pread");
      return 2;
    }
  free(buf);
  close(fd);
  return 0;
}

static int serve(const char* req, const char* resp, double spin) {
  prctl(PR_SET_NAME, "nw_server");
  for (;;) {
    int in = open(req, O_RDONLY), out = open(resp, O_WRONLY);
    if (in < 0 || out < 0) return 2;
    char c;
    while (read(in, &c, 1) == 1) {
      spin_us(spin);
      if (write(out, &c, 1) != 1) break;
    }
    close(in);
    close(out);
  }
}

static int ask(const char* req, const char* resp, long count) {
  int out = open(req, O_WRONLY), in = open(resp, O_RDONLY);
  if (in < 0 || out < 0) return 2;
  char c = 'x';
  for (long i = 0; i < count; ++i) {
    spin_us(20);
    if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1) return 2;
  }
  return 0;
}

// The ticker's and the napper's name (the tests make it untraced) and CPU.
static int become_ticker(int cpu) {
  prctl(PR_SET_NAME, "nw_ticker");
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set);
}

static int nap(long period_us, int cpu) {
  if (become_ticker(cpu)) return 3;
  struct timespec ts = {period_us / 1000000, (period_us % 1000000) * 1000};
  for (;;) nanosleep(&ts, NULL);
}

static int tick(const char* fifo, long period_us, int cpu) {
  if (become_ticker(cpu)) return 3;
  signal(SIGPIPE, SIG_IGN);
  struct timespec ts = {period_us / 1000000, (period_us % 1000000) * 1000};
  for (;;) {
    int out = open(fifo, O_WRONLY);
    if (out < 0) return 2;
    char c = 't';
    do nanosleep(&ts, NULL);
    while (write(out, &c, 1) == 1);
    close(out);
  }
}

static int take(const char* fifo, long count, double spin) {
  int in = open(fifo, O_RDONLY);
  if (in < 0) return 2;
  char c;
  for (long i = 0; i < count; ++i) {
    if (read(in, &c, 1) != 1) return 2;
    spin_us(spin);
  }
  return 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turn, rounds;

static void* player(void* arg) {
  long me = (long)arg;
  for (long i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&mu);
    while (turn % 2 != me) pthread_cond_wait(&cv, &mu);
    spin_us(20);
    ++turn;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

static int pingpong(long count) {
  rounds = count;
  pthread_t t;
  pthread_create(&t, NULL, player, (void*)1L);
  player((void*)0L);
  pthread_join(t, NULL);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 4 && !strcmp(argv[1], "sleep")) return sleeps(atol(argv[2]), atol(argv[3]));
  if (argc >= 4 && !strcmp(argv[1], "read")) return reads(argv[2], atol(argv[3]));
  if (argc >= 5 && !strcmp(argv[1], "serve")) return serve(argv[2], argv[3], atof(argv[4]));
  if (argc >= 5 && !strcmp(argv[1], "ask")) return ask(argv[2], argv[3], atol(argv[4]));
  if (argc >= 3 && !strcmp(argv[1], "pingpong")) return pingpong(atol(argv[2]));
  if (argc >= 5 && !strcmp(argv[1], "tick")) return tick(argv[2], atol(argv[3]), atoi(argv[4]));
  if (argc >= 5 && !strcmp(argv[1], "take")) return take(argv[2], atol(argv[3]), atof(argv[4]));
  if (argc >= 4 && !strcmp(argv[1], "nap")) return nap(atol(argv[2]), atoi(argv[3]));
  fprintf(
      stderr,
      "usage: nw_blockers sleep COUNT MICROS | read FILE COUNT | serve REQ RESP SPIN_US | "
      "ask REQ RESP COUNT | pingpong COUNT | tick FIFO PERIOD_US CPU | take FIFO COUNT SPIN_US | nap PERIOD_US CPU\n");
  return 2;
}
