// SPDX-License-Identifier: Apache-2.0
/* A network-softirq storm for the cost benchmark: `nw_udp_storm SECONDS` sends 64-byte UDP
 * datagrams to its own socket on the loopback device and reads each back, for SECONDS seconds.
 * Loopback delivers through the backlog of the sending CPU: every datagram raises NET_RX on the
 * CPU this runs on, in this task's context (the softirq programs' path while a tracked task
 * runs). Prints the datagrams sent. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc != 2 || atof(argv[1]) <= 0) {
    fprintf(stderr, "usage: nw_udp_storm SECONDS\n");
    return 2;
  }
  double seconds = atof(argv[1]);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, (struct sockaddr*)&addr, sizeof addr) || getsockname(fd, (struct sockaddr*)&addr, &len)) {
    perror("nw_udp_storm: socket");
    return 1;
  }
  char buf[64] = {0};
  long sent = 0;
  double end = now_s() + seconds;
  while (now_s() < end) {
    for (int i = 0; i < 64; ++i, ++sent) {
      if (sendto(fd, buf, sizeof buf, 0, (struct sockaddr*)&addr, sizeof addr) != sizeof buf ||
          recv(fd, buf, sizeof buf, 0) != sizeof buf) {
        perror("nw_udp_storm: loopback");
        return 1;
      }
    }
  }
  printf("nw_udp_storm: %ld datagrams\n", sent);
  return 0;
}
