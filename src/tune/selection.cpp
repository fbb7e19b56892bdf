// SPDX-License-Identifier: Apache-2.0
#include "tune/selection.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "knobs/catalogue.h"
#include "runner/cpu_choice.h"
#include "system/allowed_cpus.h"
#include "system/cpulist.h"
#include "system/interrupts.h"
#include "system/sysroot.h"

namespace nw::tune {

namespace {

std::string machine_ids() {
  std::vector<std::string_view> ids;
  for (const auto& k : knobs::catalogue())
    if (k.scope == knobs::Scope::runtime || k.scope == knobs::Scope::boot) ids.push_back(k.id);
  return fmt::format("{}", fmt::join(ids, ", "));
}

const knobs::Knob& machine_knob(const std::string& id, const char* option) {
  const knobs::Knob* k = knobs::find(id);
  if (!k)
    throw Error(
        fmt::format("{}: unknown knob '{}' (knobs: {}; see `noisewatch tune list`)", option, id, machine_ids()));
  if (k->scope == knobs::Scope::benchmark)
    throw Error(fmt::format("{}: {} applies to one benchmark, not to the machine: use `noisewatch run {} ...`", option,
                            id, k->run_flag));
  if (k->scope == knobs::Scope::manual)
    throw Error(fmt::format("{}: {} is done by hand (see the report's recommendations)", option, id));
  return *k;
}

bool named(const std::vector<std::string>& ids, std::string_view id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::vector<int> online_cpus(const sys::Sysroot& root) {
  auto text = root.read_line("/sys/devices/system/cpu/online");
  if (!text)
    throw Error(
        fmt::format("cannot read {}: is this a /proc and /sys tree?", root.path("/sys/devices/system/cpu/online")));
  try {
    return sys::parse_cpulist(*text);
  } catch (const std::invalid_argument& e) {
    throw Error(fmt::format("{}: {}", root.path("/sys/devices/system/cpu/online"), e.what()));
  }
}

}  // namespace

std::vector<std::string> split_ids(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

Selection select_knobs(const std::vector<std::string>& only, const std::vector<std::string>& skip) {
  for (const auto& id : only) machine_knob(id, "--only");
  for (const auto& id : skip) machine_knob(id, "--skip");
  Selection s;
  for (const auto& k : knobs::catalogue()) {
    if (k.scope != knobs::Scope::runtime && k.scope != knobs::Scope::boot) continue;
    bool wanted = only.empty() ? !k.opt_in : named(only, k.id);
    if (!wanted || named(skip, k.id)) {
      if (k.opt_in && only.empty())
        s.notes.push_back(fmt::format("{} is applied only when asked for: --only {}", k.id, k.id));
      continue;
    }
    (k.scope == knobs::Scope::runtime ? s.runtime : s.boot).push_back(&k);
  }
  // A knob that only protects another one (irqbalance undoing IRQ moves) goes with it.
  std::erase_if(s.runtime, [&](const knobs::Knob* k) {
    if (k->needs.empty()) return false;
    bool with =
        std::any_of(s.runtime.begin(), s.runtime.end(), [&](const knobs::Knob* o) { return o->id == k->needs; });
    if (!with) s.notes.push_back(fmt::format("{} left alone: it matters only with {}", k->id, k->needs));
    return !with;
  });
  return s;
}

knobs::Targets targets_for(const sys::Sysroot& root, const std::vector<int>& cpus) {
  knobs::Targets t;
  t.online = online_cpus(root);
  t.cpus = cpus;
  std::sort(t.cpus.begin(), t.cpus.end());
  for (int c : t.cpus)
    if (!std::binary_search(t.online.begin(), t.online.end(), c))
      throw Error(fmt::format("--cpu: CPU {} is not online (online: {})", c, sys::format_cpulist(t.online)));
  for (int c : t.online)
    if (!std::binary_search(t.cpus.begin(), t.cpus.end(), c)) t.housekeeping.push_back(c);
  return t;
}

knobs::Targets make_targets(const sys::Sysroot& root, const std::string& cpu_option) {
  std::vector<int> cpus;
  if (!cpu_option.empty()) {
    try {
      cpus = sys::parse_cpulist(cpu_option);
    } catch (const std::invalid_argument& e) {
      throw Error(fmt::format("--cpu: {}", e.what()));
    }
    if (cpus.empty()) throw Error("--cpu names no CPU (expected e.g. --cpu 1 or --cpu 2-3)");
  } else {
    // The CPU `run` would pick: on a sysroot, among its online CPUs and by its /proc/interrupts.
    auto allowed = root.live() ? sys::read_cpu_availability().allowed : online_cpus(root);
    auto irqs = sys::parse_interrupts(root.read("/proc/interrupts").value_or(""));
    cpus = runner::choose_cpu(allowed, irqs).cpus;
    if (cpus.empty()) throw Error("no CPU to tune for: name one with --cpu N");
  }
  return targets_for(root, cpus);
}

}  // namespace nw::tune
