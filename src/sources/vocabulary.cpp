// SPDX-License-Identifier: Apache-2.0
#include "sources/vocabulary.h"

#include <algorithm>
#include <array>

namespace nw::sources {

namespace {

// One row per category of docs/contracts.md. A named source reads lead + name + tail; a bare one
// (or a named one without its name) reads `bare`.
struct Category {
  std::string_view id;
  Group group;
  bool counted_only;  // the probes may only count it: time-valued only where entries carry time
  std::string_view lead, tail, bare;
};

constexpr std::array kCategories = {
    Category{kPreemption, Group::machine, false, "preemption by ", "", "preemption"},
    Category{kContention, Group::workload, false, "the benchmark's own threads competing for its CPUs (", ")",
             "the benchmark's own threads competing for its CPUs"},
    Category{kWakeup, Group::machine, false, "", " wake-ups", "CPU wake-ups"},
    Category{kIrq, Group::machine, false, "IRQ time from ", "", "IRQ time"},
    Category{kSoftirq, Group::machine, false, "", " softirq time", "softirq time"},
    Category{kNmi, Group::machine, false, "NMI time from ", "", "NMI time"},
    Category{kSmt, Group::machine, false, "", " on the SMT sibling", "load on the SMT sibling"},
    // The group's CPU quota (a container's --cpus, cpu.max): the benchmark was runnable, and the
    // kernel would not run it until the next period. The environment's doing, not the code's.
    Category{kThrottle, Group::machine, false, "CPU-quota throttling of cgroup ", "",
             "CPU-quota throttling (CFS bandwidth)"},
    Category{kBlocking, Group::workload, false, "", "", "the benchmark's own blocking (I/O, sleeps, waits outside it)"},
    Category{kSteal, Group::machine, false, "", "", "hypervisor steal"},
    Category{kFrequency, Group::machine, false, "", "", "time lost to a lower CPU frequency"},
    Category{kMigration, Group::machine, true, "", "", "migrations between CPUs"},
    // The benchmark's own kernel work, on its behalf: not noise, though its cost may vary.
    Category{kFault, Group::workload, true, "", "", "page faults"},
    Category{kUnexplained, Group::unexplained, false, "", "", "sources the probes cannot see (unexplained)"},
};

// Sources whose name alone says less than a phrase of their own.
struct Special {
  std::string_view category, name, text;
};
constexpr std::array kSpecial = {
    Special{kIrq, "local_timer", "timer-tick time (irq:local_timer)"},
    Special{kWakeup, "idle", "waking the CPU from idle states"},
    Special{kNmi, "nmi", "NMI time"},  // the probe's name when it cannot resolve the handler
};

const Category* find(std::string_view category) {
  auto it = std::find_if(kCategories.begin(), kCategories.end(), [&](const Category& c) { return c.id == category; });
  return it == kCategories.end() ? nullptr : &*it;
}

}  // namespace

SourceId parse(std::string_view source) {
  auto colon = source.find(':');
  if (colon == std::string_view::npos) return {std::string(source), {}};
  return {std::string(source.substr(0, colon)), std::string(source.substr(colon + 1))};
}

std::string format(std::string_view category, std::string_view name) {
  std::string s(category);
  if (!name.empty()) s.append(":").append(name);
  return s;
}

std::string format(const SourceId& id) { return format(id.category, id.name); }

std::string blocking_io(std::string_view irq_or_softirq) {
  return format(kBlocking, std::string(kBlockingIo) + ":" + std::string(irq_or_softirq));
}

std::string blocking_wait(std::string_view comm) {
  return format(kBlocking, std::string(kBlockingWait) + ":" + std::string(comm));
}

BlockingPart blocking_part(const SourceId& id) {
  if (id.category != kBlocking || id.name.empty()) return BlockingPart::none;
  SourceId part = parse(id.name);
  if (part.category == kBlockingSleep) return BlockingPart::sleep;
  if (part.category == kBlockingIo) return BlockingPart::io;
  if (part.category == kBlockingWait) return BlockingPart::wait;
  return BlockingPart::other;
}

std::string blocking_party(const SourceId& id) {
  auto p = blocking_part(id);
  return p == BlockingPart::io || p == BlockingPart::wait ? parse(id.name).name : std::string();
}

std::vector<std::string_view> known_categories() {
  std::vector<std::string_view> out;
  for (const auto& c : kCategories) out.push_back(c.id);
  return out;
}

std::string_view group_name(Group g) {
  switch (g) {
    case Group::workload:
      return "workload";
    case Group::unexplained:
      return "unexplained";
    case Group::machine:
      break;
  }
  return "machine";
}

std::string benchmark_comm(const std::vector<std::string>& command) {
  if (command.empty()) return {};
  std::string_view c = command.front();
  if (auto slash = c.rfind('/'); slash != std::string_view::npos) c.remove_prefix(slash + 1);
  return std::string(c.substr(0, 15));
}

bool is_contention(const SourceId& id, std::string_view bench_comm) {
  if (id.category == kContention) return true;
  return id.category == kPreemption && !bench_comm.empty() && id.name == bench_comm;
}

Group group_of(const SourceId& id, std::string_view bench_comm) {
  if (is_contention(id, bench_comm)) return Group::workload;
  const Category* c = find(id.category);
  return c ? c->group : Group::machine;
}

Kind kind_of(const SourceId& id, bool carries_time) {
  const Category* c = find(id.category);
  return c && c->counted_only && !carries_time ? Kind::count : Kind::time;
}

bool is_overlap(const SourceId& id) { return id.category == kSmt; }

bool is_stolen(const SourceId& id, std::string_view bench_comm) {
  return group_of(id, bench_comm) == Group::machine && !is_overlap(id);
}

Description description(const SourceId& id) {
  switch (blocking_part(id)) {
    case BlockingPart::sleep:
      return {"the benchmark's own sleeps and timeouts (blocking:sleep)", {}, {}};
    case BlockingPart::io:
      return {"the benchmark's own I/O, completed by ", blocking_party(id), ""};
    case BlockingPart::wait:
      return {"the benchmark waiting on ", blocking_party(id), ""};
    case BlockingPart::other:
      return {"the benchmark's other blocking (blocking:other)", {}, {}};
    case BlockingPart::none:
      break;
  }
  for (const auto& s : kSpecial)
    if (s.category == id.category && s.name == id.name) return {std::string(s.text), {}, {}};
  const Category* c = find(id.category);
  if (!c) return {format(id), {}, {}};  // an unknown source: its own name says the most
  if (id.name.empty() || (c->lead.empty() && c->tail.empty())) return {std::string(c->bare), {}, {}};
  return {std::string(c->lead), id.name, std::string(c->tail)};
}

std::string describe(const SourceId& id) { return description(id).text(); }

std::string describe(std::string_view source) { return describe(parse(source)); }

}  // namespace nw::sources
