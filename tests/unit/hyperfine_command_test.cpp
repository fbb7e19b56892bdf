// SPDX-License-Identifier: Apache-2.0
// --windows hyperfine: the program hyperfine's runs start, read from its command line.
#include <gtest/gtest.h>

#include "cli/window_options.h"
#include "common/errors.h"
#include "runner/hyperfine_command.h"

namespace nw {
namespace {

TEST(HyperfineProgram, TheBenchmarkedCommandsFirstWord) {
  using runner::hyperfine_program;
  EXPECT_EQ(hyperfine_program({"hyperfine", "-N", "--runs", "20", "./bench"}), "./bench");
  EXPECT_EQ(hyperfine_program({"/usr/bin/hyperfine", "--warmup", "3", "./bench -n 5"}), "./bench");
  // Options that take values skip them; --flag=value takes none; -P takes three, -L two.
  EXPECT_EQ(hyperfine_program({"hyperfine", "--export-json", "out.json", "-P", "n", "1", "5", "./bench -n {n}"}),
            "./bench");
  EXPECT_EQ(hyperfine_program({"hyperfine", "-L", "n", "1,2", "--runs=5", "-N", "FOO=1 /opt/bench {n}"}), "/opt/bench");
  EXPECT_EQ(hyperfine_program({"hyperfine", "--prepare", "sync", "--", "./bench"}), "./bench");
  // Several commands of one program: its runs all.
  EXPECT_EQ(hyperfine_program({"hyperfine", "./bench -n 1", "./bench -n 2"}), "./bench");
}

TEST(HyperfineProgram, WhatItCannotUseIsAnError) {
  using runner::hyperfine_program;
  EXPECT_THROW(hyperfine_program({"./bench"}), Error);
  EXPECT_THROW(hyperfine_program({"hyperfine", "--runs", "20"}), Error);
  EXPECT_THROW(hyperfine_program({"hyperfine", "./a", "./b"}), Error);
}

TEST(HyperfineProgram, ThePresetIsAnExecWindowOfThatProgram) {
  runner::Plan p;
  p.command = {"hyperfine", "-N", "-r", "5", "./build/bench --fast"};
  cli::apply_window_options(p, cli::WindowArgs{"hyperfine", "", "", std::nullopt, "", ""});
  EXPECT_TRUE(p.windows.on);
  EXPECT_EQ(p.windows.exec, "bench");
  EXPECT_EQ(p.windows.harness, "hyperfine");
}

}  // namespace
}  // namespace nw
