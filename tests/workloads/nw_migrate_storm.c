// SPDX-License-Identifier: Apache-2.0
/* A migration storm for the cost benchmark: `nw_migrate_storm CPU_A CPU_B COUNT` moves itself
 * between two CPUs COUNT times (sched_setaffinity to one, then the other): every call is a
 * migration the scheduler makes at once (sched_migrate_task), and a switch on each CPU. Prints
 * the migrations made. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: nw_migrate_storm CPU_A CPU_B COUNT\n");
    return 2;
  }
  int cpus[2] = {atoi(argv[1]), atoi(argv[2])};
  long count = atol(argv[3]);
  for (long i = 0; i < count; ++i) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[i & 1], &set);
    if (sched_setaffinity(0, sizeof set, &set)) {
      perror("nw_migrate_storm: sched_setaffinity");
      return 1;
    }
  }
  printf("nw_migrate_storm: %ld migrations\n", count);
  return 0;
}
