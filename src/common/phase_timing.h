// SPDX-License-Identifier: Apache-2.0
// NOISEWATCH_TIMING=1: where noisewatch's own time goes, phase by phase (host facts, the BTF scan,
// opening, loading and attaching the eBPF programs with each program's verification time, the
// repetitions, the report, the teardown), printed on stderr when the command ends. bench/overhead.sh
// breaks the start-up down with it; what the phases leave of the wall time is exec, dynamic
// linking and exit.
#pragma once
#include <string>
#include <string_view>

namespace nw::timing {

bool on();
// The origin: main() calls it first.
void begin();
// Ends the phase that began at the previous mark (the first: at the first call) and names it.
void mark(std::string_view phase);
// A line of detail printed under the phases ("verifier on_switch 1.20 ms").
void detail(std::string line);
// The parts of a repeated step (each repetition: fork and hold, reset, run, collect, ...): lap()
// adds the time since the previous lap (or lap_start(), which begins a step) to `part`; a part
// may recur in a step. print() gives each part's time per step (its sum over the steps / steps).
void lap_start();
void lap(std::string_view part);
// The phases and details, once, on stderr (nothing when off).
void print();

}  // namespace nw::timing
