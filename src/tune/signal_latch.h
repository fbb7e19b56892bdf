// SPDX-License-Identifier: Apache-2.0
// While a tuning is being applied or restored, SIGINT and SIGTERM must not kill noisewatch half
// way: they are recorded instead and acted on once the machine is in a known state.
#pragma once
#include <signal.h>

namespace nw::tune {

class SignalLatch {
 public:
  SignalLatch();   // from now on SIGINT/SIGTERM only set a flag
  ~SignalLatch();  // the previous handlers come back
  SignalLatch(const SignalLatch&) = delete;
  SignalLatch& operator=(const SignalLatch&) = delete;
  int caught() const;  // the signal received while latched, or 0

 private:
  struct sigaction saved_[2];
};

}  // namespace nw::tune
