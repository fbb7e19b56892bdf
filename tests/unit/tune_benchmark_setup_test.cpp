// SPDX-License-Identifier: Apache-2.0
// The per-benchmark knobs' environment (--clean-env, --env) and the held child's refusal
// messages, without running a benchmark.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "runner/held_child.h"

namespace nw::runner {
namespace {

std::vector<std::string> env_of(const BenchmarkSetup& s, std::vector<std::string> caller) {
  std::vector<char*> ptrs;
  for (auto& e : caller) ptrs.push_back(e.data());
  ptrs.push_back(nullptr);
  return benchmark_environment(s, ptrs.data());
}

TEST(TuneBenchmarkSetup, CleanEnvKeepsPathHomeAndSetsLangC) {
  BenchmarkSetup s;
  s.clean_env = true;
  auto env = env_of(s, {"TERM=xterm", "HOME=/root", "PATH=/usr/bin:/bin", "LANG=de_DE.UTF-8", "OLDPWD=/tmp"});
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=/root", "LANG=C"}));
  // --windows gives the benchmark its marker fd through the environment: that passes too.
  env = env_of(s, {"TERM=xterm", "NOISEWATCH_MARKER_FD=5", "PATH=/bin"});
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "NOISEWATCH_MARKER_FD=5", "LANG=C"}));
}

TEST(TuneBenchmarkSetup, EnvAddsOrReplacesAfterTheBase) {
  BenchmarkSetup s;
  s.env = {"LANG=en_US.UTF-8", "OMP_NUM_THREADS=1"};
  auto env = env_of(s, {"LANG=C", "LANGUAGE=fr", "HOME=/root"});
  EXPECT_EQ(env, (std::vector<std::string>{"LANGUAGE=fr", "HOME=/root", "LANG=en_US.UTF-8", "OMP_NUM_THREADS=1"}));
  s.clean_env = true;
  EXPECT_EQ(env_of(s, {"HOME=/h"}), (std::vector<std::string>{"HOME=/h", "LANG=en_US.UTF-8", "OMP_NUM_THREADS=1"}));
}

TEST(TuneBenchmarkSetup, ChildThatCannotBeSetUpSaysWhichStepAndWhy) {
  // An unreasonable nice fails in the child between fork and execve; the message comes back
  // through the ready pipe.
  BenchmarkSetup fifo;
  fifo.fifo = 100;  // above the SCHED_FIFO maximum (99): EINVAL for everyone
  try {
    HeldChild child({"/bin/true"}, {}, fifo);
    FAIL() << "SCHED_FIFO 100 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--fifo 100: sched_setscheduler(SCHED_FIFO) failed: Invalid argument"),
              std::string::npos)
        << e.what();
  }
  try {
    HeldChild child({"/bin/true"}, {1000}, {});
    FAIL() << "pinning to CPU 1000 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot pin the benchmark to CPU 1000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nw::runner
