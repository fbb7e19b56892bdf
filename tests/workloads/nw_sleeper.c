/* Sleeps a known total: `nw_sleeper COUNT MICROS` does COUNT nanosleeps of MICROS each, with a
 * little work between them. The time it chose to be off-CPU is COUNT * MICROS plus the timer
 * slack, which the test allows for. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  int count = argc > 1 ? atoi(argv[1]) : 20;
  long us = argc > 2 ? atol(argv[2]) : 10000;
  volatile unsigned long x = 0;
  for (int i = 0; i < count; ++i) {
    for (int k = 0; k < 100000; ++k) x += k;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
  }
  return 0;
}
