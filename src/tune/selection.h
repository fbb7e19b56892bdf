// SPDX-License-Identifier: Apache-2.0
// Which knobs a `tune` command applies (--only, --skip) and for which CPUs (--cpu).
#pragma once
#include <string>
#include <vector>

#include "knobs/knob.h"

namespace nw::sys {
class Sysroot;
}

namespace nw::tune {

struct Selection {
  std::vector<const knobs::Knob*> runtime;  // catalogue order
  std::vector<const knobs::Knob*> boot;
  std::vector<std::string> notes;  // knobs left out, and why
};

// Comma-separated ids ("aslr-off,transparent-hugepages") to a list; empty items are dropped.
std::vector<std::string> split_ids(const std::string& text);

// Without --only: every runtime knob that is not opt-in, and every boot knob. Throws nw::Error
// for an unknown id, or for a knob that applies to one benchmark (a `run` flag) or by hand.
Selection select_knobs(const std::vector<std::string>& only, const std::vector<std::string>& skip);

// The benchmark CPUs (--cpu LIST, else the CPU `run` would pick) and the others. Throws
// nw::Error when the CPU list is bad or names an offline CPU.
knobs::Targets make_targets(const sys::Sysroot& root, const std::string& cpu_option);
// The same for CPUs already chosen (run --tune, prove).
knobs::Targets targets_for(const sys::Sysroot& root, const std::vector<int>& cpus);

}  // namespace nw::tune
