// SPDX-License-Identifier: Apache-2.0
/* Ground truth for tests: how much CPU time a competing process (NW_WATCH_PID) got while a
 * workload ran, appended to NW_WATCH_OUT. Read from /proc/PID/schedstat (ns, exact). */
#ifndef NW_WATCH_H
#define NW_WATCH_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long nw_watched_runtime(void) {
  const char* pid = getenv("NW_WATCH_PID");
  char path[64];
  unsigned long long ns = 0;
  if (!pid) return 0;
  snprintf(path, sizeof path, "/proc/%s/schedstat", pid);
  FILE* f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%llu", &ns) != 1) ns = 0;
    fclose(f);
  }
  return ns;
}

static void nw_watch_report(unsigned long long start) {
  const char* out = getenv("NW_WATCH_OUT");
  if (!out || !getenv("NW_WATCH_PID")) return;
  FILE* f = fopen(out, "a");
  if (f) {
    fprintf(f, "%llu\n", nw_watched_runtime() - start);
    fclose(f);
  }
}

/* Waits until the hog PID is stopped (state T), so none of its running leaks into the
 * next window or call. */
static void wait_stopped(const char* pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%s/stat", pid);
  for (int tries = 0; tries < 100000; ++tries) {
    FILE* f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char* p = strrchr(buf, ')');
    if (p && (p[2] == 'T' || p[2] == 't')) return;
    usleep(100);
  }
}
#endif
