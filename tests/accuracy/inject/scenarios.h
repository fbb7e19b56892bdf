// SPDX-License-Identifier: Apache-2.0
// The accuracy scenarios: what each injects. How each is scored lives in score_*.cpp; the
// benchmark each runs is chosen by tests/accuracy/run.sh.
#pragma once
#include <string>
#include <vector>

namespace nw::inject {

enum class Injection { cpu_hog, timer_storm, irq_storm, migrations, blocking, none };

struct Scenario {
  const char* name;
  Injection injection;
  const char* what;  // one line for --help
};

const std::vector<Scenario>& scenarios();
const Scenario* find_scenario(const std::string& name);
std::string scenario_names();  // "cpu-hog timer-storm ..."

}  // namespace nw::inject
