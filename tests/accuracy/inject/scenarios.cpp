// SPDX-License-Identifier: Apache-2.0
#include "tests/accuracy/inject/scenarios.h"

namespace nw::inject {

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> all = {
      {"cpu-hog", Injection::cpu_hog, "a process acc_hog spins on the target CPU"},
      {"timer-storm", Injection::timer_storm, "a thread acc_timer on the target CPU wakes every --period-us"},
      {"irq-storm", Injection::irq_storm,
       "O_DIRECT writes from the other CPU; their completion IRQ lands on the target"},
      {"migrations", Injection::migrations, "--moves sched_setaffinity moves of the benchmark between two CPUs"},
      {"blocking", Injection::blocking, "the benchmark is told to sleep --sleep-ms itself"},
      {"none", Injection::none, "nothing"},
      // Issue #12 section 1's workload shapes, each with the cpu-hog injection.
      {"wrappers", Injection::cpu_hog, "cpu-hog into a benchmark behind two wrapper shells"},
      {"threads-spread", Injection::cpu_hog, "cpu-hog into a benchmark with threads on several CPUs"},
      {"threads-one-cpu", Injection::cpu_hog, "cpu-hog into a benchmark with two threads on one CPU"},
  };
  return all;
}

const Scenario* find_scenario(const std::string& name) {
  for (const auto& s : scenarios())
    if (name == s.name) return &s;
  return nullptr;
}

std::string scenario_names() {
  std::string s;
  for (const auto& sc : scenarios()) {
    if (!s.empty()) s += ' ';
    s += sc.name;
  }
  return s;
}

}  // namespace nw::inject
