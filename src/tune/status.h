// SPDX-License-Identifier: Apache-2.0
// `noisewatch tune status`: for each knob, the value now, the tuned value, and whether a restore
// is pending.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "knobs/knob.h"
#include "tune/journal.h"

namespace nw::sys {
class Sysroot;
}

namespace nw::tune {

enum class State { tuned, untuned, partly, absent, unknown };
std::string_view state_name(State s);  // "tuned" | "not tuned" | "partly" | "n/a" | "unknown"

struct StatusRow {
  const knobs::Knob* knob = nullptr;
  State state = State::unknown;
  std::string current, tuned;  // value now and value tune sets ("2", "0"); several joined by ", "
  std::string note;            // why n/a, or what the values cover
  int pending = 0;             // journal entries of this knob (a restore would put them back)
};

struct StatusResult {
  knobs::Targets targets;
  std::vector<StatusRow> rows;  // runtime knobs, then boot knobs
  std::optional<Journal> journal;
};

StatusResult status(const sys::Sysroot& root, const knobs::Targets& t, const std::optional<Journal>& journal);

}  // namespace nw::tune
