// SPDX-License-Identifier: Apache-2.0
#include "tune/status.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "knobs/catalogue.h"
#include "system/cpulist.h"
#include "system/kernel_cmdline.h"
#include "system/sysroot.h"
#include "tune/boot.h"
#include "tune/file_io.h"

namespace nw::tune {

namespace {

constexpr size_t kValuesShown = 3;

void add_unique(std::vector<std::string>& v, std::string s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
}

std::string joined(const std::vector<std::string>& v) {
  if (v.size() <= kValuesShown) return fmt::format("{}", fmt::join(v, ", "));
  return fmt::format("{}, ... ({} values)", fmt::join(v.begin(), v.begin() + kValuesShown, ", "), v.size());
}

StatusRow runtime_row(const sys::Sysroot& root, const knobs::Knob& k, const knobs::Targets& t) {
  StatusRow row;
  row.knob = &k;
  sys::Sysroot fresh(root.root());
  knobs::Plan plan = k.plan(fresh, t);
  if (!plan.absent.empty()) {
    row.state = State::absent;
    row.note = plan.absent;
    return row;
  }
  std::vector<std::string> current, tuned;
  int at_target = 0, off_target = 0;
  for (const auto& w : plan.writes) {
    auto now = read_exact(root.path(w.path));
    add_unique(tuned, knobs::value_of(w.format, w.value));
    if (!now.content) {
      add_unique(current, errno_text(now.err));
      ++off_target;
      continue;
    }
    add_unique(current, knobs::value_of(w.format, *now.content));
    (knobs::same_value(w.format, *now.content, w.value) ? at_target : off_target) += 1;
  }
  for (const auto& unit : plan.stop_services) {
    add_unique(current, unit + " running");
    add_unique(tuned, unit + " stopped");
    ++off_target;
  }
  row.current = joined(current);
  row.tuned = joined(tuned);
  row.state = off_target == 0 ? State::tuned : at_target == 0 ? State::untuned : State::partly;
  row.note = plan.note;
  if (plan.writes.size() > 1)
    row.note = fmt::format("{} files{}{}", plan.writes.size(), row.note.empty() ? "" : "; ", row.note);
  return row;
}

}  // namespace

std::string_view state_name(State s) {
  switch (s) {
    case State::tuned:
      return "tuned";
    case State::untuned:
      return "not tuned";
    case State::partly:
      return "partly";
    case State::absent:
      return "n/a";
    case State::unknown:
      return "unknown";
  }
  return "?";
}

StatusResult status(const sys::Sysroot& root, const knobs::Targets& t, const std::optional<Journal>& journal) {
  StatusResult out;
  out.targets = t;
  out.journal = journal;
  for (const knobs::Knob* k : knobs::runtime_knobs()) out.rows.push_back(runtime_row(root, *k, t));
  auto cmdline = sys::read_kernel_cmdline(root);
  for (const knobs::Knob* k : knobs::boot_knobs()) {
    StatusRow row;
    row.knob = k;
    knobs::CpuSplit split = knobs::split_cpus(t.cpus, t.online);
    row.tuned = knobs::boot_params({k}, sys::format_cpulist(split.isolated), sys::format_cpulist(split.housekeeping));
    if (!cmdline) {
      row.state = State::unknown;
      row.note = "/proc/cmdline is not readable";
    } else {
      row.current = cmdline->has(std::string(k->boot_key))
                        ? fmt::format("{}={}", k->boot_key, cmdline->get(std::string(k->boot_key)).value_or(""))
                        : "unset";
      row.state = boot_param_in_effect(*k, *cmdline, t) ? State::tuned : State::untuned;
      row.note = "boot parameter: changes need a reboot";
    }
    out.rows.push_back(std::move(row));
  }
  if (journal)
    for (auto& row : out.rows)
      row.pending = int(std::count_if(journal->changes.begin(), journal->changes.end(),
                                      [&](const Change& c) { return c.knob == row.knob->id; }));
  return out;
}

}  // namespace nw::tune
