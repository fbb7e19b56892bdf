// SPDX-License-Identifier: Apache-2.0
// The one duration formatter every output uses.
#include <gtest/gtest.h>

#include "common/durations.h"

namespace nw {
namespace {

TEST(Durations, OneWayToWriteThemInEveryOutput) {
  EXPECT_EQ(format_duration(812), "812 ns");
  EXPECT_EQ(format_duration(12'345), "12.3 µs");
  EXPECT_EQ(format_duration(4'561'000), "4.56 ms");
  EXPECT_EQ(format_duration(1'234'000'000), "1.234 s");
  // Four significant digits keep small changes visible (compare).
  EXPECT_EQ(format_duration(13.43, 4), "13.43 ns");
  EXPECT_EQ(format_duration(870.2, 4), "870.2 ns");
  EXPECT_EQ(format_duration(12'345'678, 4), "12.35 ms");
  EXPECT_EQ(format_duration(0, 4), "0 ns");
  EXPECT_EQ(format_duration(-2'500, 4), "-2.500 µs");
}

}  // namespace
}  // namespace nw
