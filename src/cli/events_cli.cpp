// SPDX-License-Identifier: Apache-2.0
// `noisewatch events [PATTERN]`: the events libpfm4 knows on this machine, by PMU, each marked
// with whether the kernel lets us count it here (a VM typically exposes no hardware PMU even
// though libpfm4 recognises the CPU), plus the kernel's sysfs PMU events and effective-ghz.
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "cli/commands.h"
#include "common/errors.h"
#include "probes/counter_fd.h"
#include "probes/counter_host.h"
#include "probes/counter_sysfs_pmu.h"
#include "probes/counters.h"
#include "probes/pfm_events.h"

namespace nw::cli {

namespace {

using namespace nw::probes;

struct Row {
  std::string name, desc;
  bool usable = false;
  std::string why;  // when not usable
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// A glob when it has wildcards (tried on PMU::NAME and on NAME alone), otherwise a
// case-insensitive substring.
bool matches(const std::string& pattern, const std::string& text) {
  if (pattern.empty()) return true;
  if (pattern.find_first_of("*?[") != std::string::npos)
    return fnmatch(pattern.c_str(), text.c_str(), FNM_CASEFOLD) == 0;
  return lower(text).find(lower(pattern)) != std::string::npos;
}

Row judge(const std::string& name, const std::string& desc, const std::optional<ResolvedEvent>& ev,
          const PmuAvailability& pmu) {
  Row r{name, desc, false, ""};
  if (!ev) {
    r.why = "needs a unit mask or attributes";
    return r;
  }
  int err = probe_open(ev->attr);
  r.usable = err == 0;
  if (!r.usable)
    r.why = ev->hardware && !pmu.hardware   ? pmu.reason
            : err == EACCES || err == EPERM ? permission_hint()
                                            : fmt::format("perf_event_open: {}", std::strerror(err));
  return r;
}

std::optional<ResolvedEvent> encode_with_first_umask(const std::string& pmu, const PfmEventInfo& e) {
  if (e.encoding || e.umasks.empty()) return e.encoding;
  try {
    return pfm_resolve(fmt::format("{}::{}:{}", pmu, e.name, e.umasks.front()));
  } catch (const Error&) {
    return std::nullopt;
  }
}

void print_section(const std::string& title, const std::vector<Row>& rows, bool usable_only) {
  size_t usable = size_t(std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.usable; }));
  std::string common;  // one reason shared by every unusable row is said once, in the title
  bool shared = usable == 0 && !rows.empty() &&
                std::all_of(rows.begin(), rows.end(), [&](const Row& r) { return r.why == rows[0].why; });
  if (shared) common = ": " + rows[0].why;
  fmt::print("{}: {} event{}, {} usable here{}\n", title, rows.size(), rows.size() == 1 ? "" : "s", usable, common);
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.name.size());
  for (const auto& r : rows) {
    if (usable_only && !r.usable) continue;
    std::string note = r.usable || shared ? r.desc : r.why;
    if (note.size() > 70) note = note.substr(0, 67) + "...";
    fmt::print("  {:<6}  {:<{}}  {}\n", r.usable ? "usable" : "-", r.name, width, note);
  }
}

int list_events(const std::string& pattern, bool usable_only) {
  PmuAvailability pmu = probe_hardware_pmu();
  int shown = 0;
  for (const auto& p : pfm_present_pmus()) {
    std::vector<Row> rows;
    for (const auto& e : p.events) {
      std::string full = fmt::format("{}::{}", p.name, e.name);
      if (!matches(pattern, full) && !matches(pattern, e.name)) continue;
      std::string desc = e.desc;
      if (!e.umasks.empty()) desc = fmt::format("[{}] {}", fmt::join(e.umasks, " "), desc);
      rows.push_back(judge(full, desc, encode_with_first_umask(p.name, e), pmu));
    }
    if (rows.empty()) continue;
    shown += int(rows.size());
    print_section(fmt::format("{} ({}, {} PMU)", p.name, p.desc, p.kind), rows, usable_only);
  }
  // libpfm4 has no tables for the kernel's MSR PMU; its events come from sysfs.
  std::vector<Row> msr_rows;
  for (const auto& e : sysfs_pmu_events("msr")) {
    std::string full = fmt::format("msr/{}/", e);
    if (!matches(pattern, full)) continue;
    std::optional<ResolvedEvent> ev;
    try {
      ev = sysfs_resolve(full, "msr", e);
    } catch (const Error&) {
    }
    msr_rows.push_back(judge(full, "model-specific register, read at context switch", ev, pmu));
  }
  if (!msr_rows.empty()) {
    shown += int(msr_rows.size());
    print_section("msr (kernel MSR PMU, from sysfs)", msr_rows, usable_only);
  }
  if (matches(pattern, kEffectiveGhz)) {
    ++shown;
    auto missing = aperf_mperf_missing();
    Row r{kEffectiveGhz, "busy frequency from msr aperf/mperf/tsc", !missing, missing.value_or("")};
    print_section("noisewatch (derived)", {r}, usable_only);
  }
  if (shown == 0)
    fmt::print(stderr, "noisewatch: no event matches '{}' (run `noisewatch events` to see them all)\n", pattern);
  return 0;
}

}  // namespace

void register_events(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand(
      "events", "list the perf events libpfm4 knows on this machine, by PMU, marking those usable here");
  static std::string pattern;
  static bool usable_only = false;
  sub->add_option("PATTERN", pattern,
                  "only events whose PMU::NAME contains this (case-insensitive), or matches it as "
                  "a glob when it has * ? [");
  sub->add_flag("--usable", usable_only, "list only the events that can be counted here");
  sub->callback([&action] { action = [] { return list_events(pattern, usable_only); }; });
}

}  // namespace nw::cli
