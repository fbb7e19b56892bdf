// SPDX-License-Identifier: Apache-2.0
/* A disk-IRQ storm for end-to-end tests: `nw_io_storm CPU SECONDS DIR [THREADS]` pins THREADS
 * threads (default 2) to CPU, each doing 4 KiB O_DIRECT writes to a 4 MiB file in DIR (created,
 * filled once with buffered writes so the overwrites are pure data I/O, and unlinked at once),
 * for SECONDS seconds. Every write completes with the disk's IRQ, wherever the device delivers
 * it: on this project's VMs virtio1-req.0 lands on CPU 1, so writers on CPU 0 storm CPU 1.
 * Exits 3 when DIR does not support O_DIRECT (tmpfs). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fd = -1, cpu = 0;
static double seconds = 1;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void* writer(void* arg) {
  long id = (long)arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  void* buf = NULL;
  if (posix_memalign(&buf, 4096, 4096)) return NULL;
  memset(buf, 0x5a, 4096);
  double end = now_s() + seconds;
  for (long i = id; now_s() < end; i += 7) pwrite(fd, buf, 4096, (i % 1024) * 4096);
  free(buf);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s CPU SECONDS DIR [THREADS]\n", argv[0]);
    return 2;
  }
  cpu = atoi(argv[1]);
  seconds = atof(argv[2]);
  int threads = argc > 4 ? atoi(argv[4]) : 2;
  if (threads < 1 || threads > 16) threads = 2;
  char path[4096];
  snprintf(path, sizeof path, "%s/nw-io-storm-XXXXXX", argv[3]);
  int fd0 = mkstemp(path);
  if (fd0 < 0) {
    perror("mkstemp");
    return 2;
  }
  static char chunk[1 << 20];
  memset(chunk, 0x5a, sizeof chunk);
  for (int i = 0; i < 4; ++i)
    if (write(fd0, chunk, sizeof chunk) != (ssize_t)sizeof chunk) return 2;
  fsync(fd0);
  fd = open(path, O_RDWR | O_DIRECT);
  unlink(path);
  close(fd0);
  if (fd < 0) return 3;
  pthread_t t[16];
  for (long i = 0; i < threads; ++i) pthread_create(&t[i], NULL, writer, (void*)i);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  return 0;
}
