// SPDX-License-Identifier: Apache-2.0
#include "common/phase_timing.h"

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace nw::timing {

namespace {

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

struct State {
  uint64_t origin = now_ns(), last = origin;
  std::vector<std::pair<std::string, uint64_t>> phases;
  std::vector<std::string> details;
  uint64_t lap_last = 0, steps = 0;
  std::vector<std::pair<std::string, uint64_t>> laps;  // part -> sum ns over the steps
};

State& state() {
  static State s;
  return s;
}

}  // namespace

bool on() {
  static const bool enabled = [] {
    const char* v = std::getenv("NOISEWATCH_TIMING");
    return v && *v && std::string_view(v) != "0";
  }();
  return enabled;
}

void begin() {
  if (on()) (void)state();
}

void mark(std::string_view phase) {
  if (!on()) return;
  State& s = state();
  uint64_t t = now_ns();
  s.phases.emplace_back(std::string(phase), t - s.last);
  s.last = t;
}

void lap_start() {
  if (!on()) return;
  state().lap_last = now_ns();
  state().steps++;
}

void lap(std::string_view part) {
  if (!on()) return;
  State& s = state();
  uint64_t t = now_ns();
  auto it = std::find_if(s.laps.begin(), s.laps.end(), [&](const auto& l) { return l.first == part; });
  if (it == s.laps.end()) it = s.laps.insert(s.laps.end(), {std::string(part), 0});
  it->second += t - s.lap_last;
  s.lap_last = t;
}

void detail(std::string line) {
  if (on()) state().details.push_back(std::move(line));
}

void print() {
  if (!on()) return;
  State& s = state();
  std::string line;
  for (const auto& [name, ns] : s.phases)
    line += fmt::format("{}{} {:.2f} ms", line.empty() ? "" : ", ", name, ns / 1e6);
  fmt::print(stderr, "noisewatch: timing: {} (total {:.2f} ms since main)\n", line, (s.last - s.origin) / 1e6);
  std::string laps;
  for (const auto& [part, sum] : s.laps)
    laps += fmt::format("{}{} {:.3f} ms", laps.empty() ? "" : ", ", part, double(sum) / double(s.steps) / 1e6);
  if (!laps.empty()) fmt::print(stderr, "noisewatch: timing: per repetition (mean of {}): {}\n", s.steps, laps);
  for (const auto& d : s.details) fmt::print(stderr, "noisewatch: timing: {}\n", d);
  s.phases.clear();
  s.details.clear();
}

}  // namespace nw::timing
