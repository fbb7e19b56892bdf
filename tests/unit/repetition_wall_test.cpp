// SPDX-License-Identifier: Apache-2.0
// A repetition ends when the benchmark's process ended, not when noisewatch noticed: wall_end.
#include <gtest/gtest.h>

#include "runner/repetition.h"

namespace nw::runner {
namespace {

TEST(WallEnd, TheProcessEndBeforeALateWakeUpWins) {
  // Released at 1,000; the process ended at 5,000; noisewatch, throttled, woke at 75,000.
  EXPECT_EQ(wall_end(1000, 75000, 5000), 5000u);
}

TEST(WallEnd, WithoutTheProcessEndTheWakeUpStands) { EXPECT_EQ(wall_end(1000, 75000, 0), 75000u); }

TEST(WallEnd, AnEndAfterAnEarlyWakeUpWins) {
  // The pidfd read as exited at 74,990, before the process's last switch at 75,000: the CPU time
  // counts up to the switch, so the wall time does too.
  EXPECT_EQ(wall_end(1000, 74990, 75000), 75000u);
}

TEST(WallEnd, AnEndBeforeTheReleaseIsNotItsOwn) {
  EXPECT_EQ(wall_end(1000, 75000, 500), 75000u);
  EXPECT_EQ(wall_end(1000, 75000, 1000), 75000u);
}

}  // namespace
}  // namespace nw::runner
