// SPDX-License-Identifier: Apache-2.0
#include "tune/signal_latch.h"

#include <signal.h>

namespace nw::tune {

namespace {

volatile sig_atomic_t g_caught = 0;

void on_signal(int sig) { g_caught = sig; }

}  // namespace

SignalLatch::SignalLatch() {
  g_caught = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &saved_[0]);
  sigaction(SIGTERM, &sa, &saved_[1]);
}

SignalLatch::~SignalLatch() {
  sigaction(SIGINT, &saved_[0], nullptr);
  sigaction(SIGTERM, &saved_[1], nullptr);
}

int SignalLatch::caught() const { return g_caught; }

}  // namespace nw::tune
