// SPDX-License-Identifier: Apache-2.0
// The one quoting rule for commands noisewatch prints: what is printed runs as shown.
#include <gtest/gtest.h>

#include "common/shell_words.h"

namespace nw {
namespace {

TEST(ShellWords, SafeWordsStayAsTheyAre) {
  EXPECT_EQ(shell_quote("./bench"), "./bench");
  EXPECT_EQ(shell_quote("--benchmark_filter=BM_x/1024:2,3+@%"), "--benchmark_filter=BM_x/1024:2,3+@%");
}

TEST(ShellWords, AnythingElseIsSingleQuoted) {
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(single_quoted("plain"), "'plain'");
}

TEST(ShellWords, ACommandIsItsWordsQuotedAndJoined) {
  EXPECT_EQ(shell_command({"python3", "-c", "print('x')"}), "python3 -c 'print('\\''x'\\'')'");
  EXPECT_EQ(shell_command({}), "");
}

}  // namespace
}  // namespace nw
