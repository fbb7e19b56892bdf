// SPDX-License-Identifier: Apache-2.0
/* The cost of window markers, and a context-switch storm in windows, for bench/windows_overhead.sh:
 *   nw_markers MODE WINDOWS [ROUNDS]
 * MODE usdt: NOISEWATCH_WINDOW_BEGIN()/END() (a nop unless traced); fd: the lines "begin" and
 * "end" written to $NOISEWATCH_MARKER_FD (to /dev/null when it is not set: the same write(2)
 * without noisewatch); none: no marker. Each window runs ROUNDS round trips of a ping-pong
 * between two threads over pipes (on one CPU, every hand-over is a context switch; 0: an empty
 * window, so the time per window is the marker pair's cost). Prints its own time. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <noisewatch/markers.h>

static int ab[2], ba[2];
static long total_rounds;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void* pong(void* arg) {
  (void)arg;
  char c;
  for (long i = 0; i < total_rounds; ++i) {
    if (read(ab[0], &c, 1) != 1) exit(3);
    if (write(ba[1], &c, 1) != 1) exit(3);
  }
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  long windows = argc > 2 ? atol(argv[2]) : 0, rounds = argc > 3 ? atol(argv[3]) : 0;
  int usdt = !strcmp(mode, "usdt"), fd_mode = !strcmp(mode, "fd"), none = !strcmp(mode, "none");
  if (!(usdt || fd_mode || none) || windows <= 0 || rounds < 0 || pipe(ab) || pipe(ba)) {
    fprintf(stderr, "usage: nw_markers usdt|fd|none WINDOWS [ROUNDS]\n");
    return 2;
  }
  int fd = -1;
  if (fd_mode) fd = getenv("NOISEWATCH_MARKER_FD") ? atoi(getenv("NOISEWATCH_MARKER_FD")) : open("/dev/null", O_WRONLY);
  total_rounds = windows * rounds;
  pthread_t t;
  if (rounds && pthread_create(&t, NULL, pong, NULL)) return 3;
  char c = 'x';
  double t0 = now_ns();
  for (long w = 0; w < windows; ++w) {
    if (usdt) NOISEWATCH_WINDOW_BEGIN();
    if (fd_mode && write(fd, "begin\n", 6) != 6) return 4;
    for (long i = 0; i < rounds; ++i) {
      if (write(ab[1], &c, 1) != 1) return 3;
      if (read(ba[0], &c, 1) != 1) return 3;
    }
    if (usdt) NOISEWATCH_WINDOW_END();
    if (fd_mode && write(fd, "end\n", 4) != 4) return 4;
  }
  double ns = now_ns() - t0;
  if (rounds) pthread_join(t, NULL);
  printf("nw_markers: %ld windows in %.3f ms: %.1f ns per window\n", windows, ns / 1e6, ns / windows);
  return 0;
}
