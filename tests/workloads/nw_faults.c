// SPDX-License-Identifier: Apache-2.0
/* A fault-heavy workload: `nw_faults MIB ROUNDS` maps MIB MiB of anonymous memory, touches every
 * 4 KiB page (one minor fault each, with transparent huge pages refused by madvise), unmaps it,
 * ROUNDS times. Prints nothing; its cost is the faults. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
  int rounds = argc > 2 ? atoi(argv[2]) : 4;
  size_t len = mib << 20;
  for (int r = 0; r < rounds; ++r) {
    char* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    madvise(p, len, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < len; i += 4096) p[i] = (char)i;
    munmap(p, len);
  }
  return 0;
}
