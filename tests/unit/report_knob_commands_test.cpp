// SPDX-License-Identifier: Apache-2.0
// The report's recommendations render the one knob catalogue (src/knobs/): a recommendation's
// commands are the catalogue's commands for its knob plus the rerun that proves it, boot
// parameters recommended together share one boot-loader edit, and `check` gives the same edit as
// the report for the same knob.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "knobs/catalogue.h"
#include "report_synthetic.h"
#include "reports/advice.h"
#include "reports/report.h"
#include "support/check_test_util.h"

namespace nw {
namespace {

using test::find_rec;
using test::time_entry;

bool has_line_starting(const Recommendation& r, const std::string& prefix) {
  return std::any_of(r.commands.begin(), r.commands.end(), [&](const std::string& c) { return c.starts_with(prefix); });
}

// Noise of the given sources in alternate runs: each is material, so its knobs are recommended.
RunRecord noisy(const std::vector<NoiseEntry>& entries) {
  auto rec = test::synthetic_record(20, 0.2e6, [&](int i, RunSample& r, auto&) {
    if (i % 2)
      for (const auto& e : entries) r.noise.push_back(e);
  });
  return test::analyzed(rec);
}

// Records that call for most knobs of the catalogue, each with what its recommendations name
// beyond the record's CPUs and command (the process and pid, the IRQ, the CPU to pin to).
struct Scenario {
  const char* name;
  RunRecord rec;
  std::function<void(const std::string& id, knobs::Context&)> adjust;
};

std::vector<Scenario> scenarios() {
  std::vector<Scenario> s;
  s.push_back(
      {"hog",
       noisy({{"preemption:backup", 20, uint64_t(6e6), uint64_t(1e6), {{"pids", nlohmann::json::array({4242})}}}}),
       [](const std::string& id, knobs::Context& c) {
         if (id.starts_with("stop-process:")) {
           c.process = "backup";
           c.pids = {4242};
         }
       }});
  s.push_back({"device irq", noisy({{"irq:virtio1-req.0", 10, uint64_t(3e6), 50000, {{"irq", 24}}}}),
               [](const std::string& id, knobs::Context& c) {
                 if (id.starts_with("move-irq:")) c.irqs = {24};
               }});
  s.push_back({"kernel threads",
               noisy({time_entry("preemption:kworker/u8:1", 4e6), time_entry("preemption:khugepaged", 3e6)}), nullptr});
  s.push_back({"machine",
               noisy({time_entry("smt:cc1plus", 3e6), time_entry("nmi:perf_event_nmi_handler", 2e6),
                      time_entry("wakeup:idle", 2e6)}),
               nullptr});
  auto freq = test::synthetic_record(20, 0.2e6, [](int i, RunSample& r, auto&) {
    double khz = (i % 2) ? 2.0e6 : 3.0e6;
    r.mean_khz = khz;
    r.wall_ns = uint64_t(1e9 * (3.0e6 / khz - 1));
  });
  s.push_back({"frequency", test::analyzed(freq), nullptr});
  auto layout = test::synthetic_record(20, 4e6, nullptr);  // nothing measured: all of it unexplained
  s.push_back({"unexplained", test::analyzed(layout), nullptr});
  auto unpinned = test::synthetic_record(20, 20e3, [](int, RunSample& r, auto& rng) {
    int n = std::uniform_int_distribution<int>(0, 30)(rng);
    r.noise.push_back({"migration", uint64_t(n), 0, 0, nullptr});
    r.wall_ns = uint64_t(n * 40e3);
  });
  unpinned.pinned = false;
  s.push_back({"unpinned", test::analyzed(unpinned), [](const std::string& id, knobs::Context& c) {
                 if (id == "pin-cpu") c.cpus = {1};  // the last CPU of the 2-CPU machine
               }});
  return s;
}

// The catalogue knob a recommendation stands for: its id, or the knob behind a per-process or
// per-IRQ id; nullptr for advice about the measurement or the workload's setup.
const knobs::Knob* knob_of(const std::string& id) {
  if (id.starts_with("stop-process:")) return &knobs::get("stop-process");
  if (id.starts_with("move-irq:")) return &knobs::get("irq-affinity");
  return knobs::find(id);
}

size_t boot_recommendations(const RunRecord& rec) {
  return size_t(std::count_if(rec.recommendations.begin(), rec.recommendations.end(), [](const Recommendation& r) {
    const auto* k = knobs::find(r.id);
    return k && k->scope == knobs::Scope::boot;
  }));
}

TEST(ReportKnobCommands, EachRecommendationHasItsKnobsCatalogueCommands) {
  std::set<std::string_view> seen;
  for (auto& sc : scenarios()) {
    ASSERT_FALSE(sc.rec.recommendations.empty()) << sc.name;
    bool merged = boot_recommendations(sc.rec) > 1;  // see BootParametersRecommendedTogether...
    for (const auto& r : sc.rec.recommendations) {
      const knobs::Knob* k = knob_of(r.id);
      if (!k || (merged && k->scope == knobs::Scope::boot)) continue;
      knobs::Context kc = report::knob_context(sc.rec);
      if (sc.adjust) sc.adjust(r.id, kc);
      auto catalogue = knobs::commands(*k, kc);
      ASSERT_GE(r.commands.size(), catalogue.size()) << sc.name << " " << r.id;
      EXPECT_EQ(std::vector<std::string>(r.commands.begin(), r.commands.begin() + long(catalogue.size())), catalogue)
          << sc.name << " " << r.id;
      // Beyond them, at most the rerun line, when the catalogue's commands do not start one.
      std::string again = knobs::rerun(*k, kc);
      bool in_catalogue = std::any_of(catalogue.begin(), catalogue.end(),
                                      [&](const std::string& c) { return !again.empty() && c.starts_with(again); });
      size_t extra = again.empty() || in_catalogue ? 0 : 1;
      ASSERT_EQ(r.commands.size(), catalogue.size() + extra) << sc.name << " " << r.id;
      if (extra)
        EXPECT_EQ(r.commands.back(), again + "   # or rerun with it to prove it: for this run only, then restored");
      EXPECT_EQ(r.tradeoff, k->tradeoff) << r.id;
      EXPECT_EQ(r.reboot, k->reboot()) << r.id;
      seen.insert(k->id);
    }
  }
  // Enough of the catalogue that a regression in any family shows.
  for (const char* id : {"stop-process", "irq-affinity", "irqbalance", "irqaffinity", "isolcpus", "workqueue-cpumask",
                         "sched-fifo", "nice", "smt-off", "nmi-watchdog", "c-states", "performance-governor",
                         "fixed-frequency", "turbo-off", "aslr-off", "clean-env", "pin-cpu", "transparent-hugepages"})
    EXPECT_TRUE(seen.count(id)) << id << " was not recommended by any scenario";
}

TEST(ReportKnobCommands, BootParametersRecommendedTogetherShareOneEdit) {
  auto rec =
      noisy({time_entry("irq:local_timer", 3e6), time_entry("softirq:RCU", 2e6), time_entry("preemption:backup", 4e6)});
  std::vector<const Recommendation*> boot;
  std::vector<const knobs::Knob*> params;
  for (const auto& r : rec.recommendations)
    if (const auto* k = knobs::find(r.id); k && k->scope == knobs::Scope::boot) {
      boot.push_back(&r);
      params.push_back(k);
    }
  ASSERT_EQ(boot.size(), 3u) << "isolcpus, nohz-full and rcu-nocbs";
  // The first in rank order carries one edit of all three, in that order; the others point at it.
  auto edit = knobs::boot_edit(params, report::knob_context(rec));
  ASSERT_EQ(boot[0]->commands.size(), edit.size() + 1);
  EXPECT_EQ(boot[0]->commands[0].rfind("# one edit and one reboot for every boot parameter recommended here: ", 0), 0u);
  EXPECT_EQ(std::vector<std::string>(boot[0]->commands.begin() + 1, boot[0]->commands.end()), edit);
  for (const char* param : {"isolcpus=domain,managed_irq,1", "nohz_full=1", "rcu_nocbs=1 rcu_nocb_poll"})
    EXPECT_NE(boot[0]->commands[2].find(param), std::string::npos) << boot[0]->commands[2];
  for (size_t i = 1; i < boot.size(); ++i)
    EXPECT_EQ(boot[i]->commands, std::vector<std::string>{"# set by the boot-loader edit of " + boot[0]->id +
                                                          " above (one edit, one reboot)"});
  int seds = 0, reboots = 0;
  for (const auto& r : rec.recommendations)
    for (const auto& c : r.commands) {
      seds += c.find("sed -i") != std::string::npos;
      reboots += c.find("&& reboot") != std::string::npos;
    }
  EXPECT_EQ(seds, 1);
  EXPECT_EQ(reboots, 1);
}

// The same machine (CPU 1 of 2, nothing isolated) seen by `check` and by a run: the fix of the
// finding and the recommendation of the knob are the same edit, check's with sudo.
TEST(ReportKnobCommands, CheckAndRunGiveTheSameBootEdit) {
  auto without_sudo = [](std::vector<std::string> lines) {
    for (auto& l : lines)
      for (size_t at; (at = l.find("sudo ")) != std::string::npos;) l.erase(at, 5);
    return lines;
  };
  auto check =
      check::testing::check_sysroot(check::testing::fixture_sysroot("vm-firecracker-2cpu"), std::vector<int>{1});
  struct Pair {
    const char* finding;
    const char* knob;
    RunRecord run;
  };
  std::vector<Pair> pairs = {{"cpu-isolation", "isolcpus", noisy({time_entry("preemption:backup", 4e6)})},
                             {"nohz-full", "nohz-full", noisy({time_entry("irq:local_timer", 3e6)})}};
  for (const auto& p : pairs) {
    const check::Finding* f = check.find(p.finding);
    ASSERT_NE(f, nullptr) << p.finding;
    ASSERT_EQ(f->status, check::Status::warn) << p.finding << ": " << f->summary;
    const Recommendation* r = find_rec(p.run, p.knob);
    ASSERT_NE(r, nullptr) << p.knob;
    ASSERT_EQ(boot_recommendations(p.run), 1u) << p.knob << " alone: its own edit";
    ASSERT_TRUE(
        std::any_of(f->fix.begin(), f->fix.end(), [](const std::string& l) { return l.starts_with("sudo sed -i"); }));
    EXPECT_EQ(without_sudo(f->fix), r->commands) << p.finding;
    EXPECT_EQ(r->commands, knobs::commands(knobs::get(p.knob), report::knob_context(p.run)));
  }
}

TEST(ReportKnobCommands, KnobsWithAPerRunFlagPointAtIt) {
  auto hog = noisy({time_entry("preemption:backup", 4e6)});
  EXPECT_TRUE(has_line_starting(*find_rec(hog, "sched-fifo"), "noisewatch --fifo 1 -- ./bench"));
  EXPECT_TRUE(has_line_starting(*find_rec(hog, "nice"), "noisewatch --nice -20 -- ./bench"));
  for (const char* id : {"isolcpus", "stop-process:backup"})  // by hand or at boot: no rerun
    EXPECT_FALSE(has_line_starting(*find_rec(hog, id), "noisewatch")) << id;

  auto layout = test::analyzed(test::synthetic_record(20, 4e6, nullptr));
  EXPECT_TRUE(has_line_starting(*find_rec(layout, "aslr-off"), "noisewatch --no-aslr -- ./bench"));
  EXPECT_TRUE(has_line_starting(*find_rec(layout, "clean-env"), "noisewatch --clean-env -- ./bench"));

  // Runtime knobs: `run --tune` for that knob alone (irqbalance with the IRQ move it needs).
  auto machine = noisy({time_entry("nmi:perf_event_nmi_handler", 3e6), time_entry("irq:eth0-rx-1", 3e6)});
  EXPECT_TRUE(has_line_starting(*find_rec(machine, "nmi-watchdog"),
                                "noisewatch --tune --tune-only nmi-watchdog -- ./bench   # or rerun with it"));
  EXPECT_TRUE(has_line_starting(*find_rec(machine, "irqbalance"),
                                "noisewatch --tune --tune-only irqbalance,irq-affinity -- ./bench"));
  auto text = report::render(machine, report::Format::text, false);
  EXPECT_NE(text.find("noisewatch --tune --tune-only nmi-watchdog -- ./bench   # or rerun with it to prove it"),
            std::string::npos)
      << text;
}

TEST(ReportKnobCommands, RerunsOfAWindowsRecordKeepWindows) {
  auto rec = test::synthetic_record(20, 0.2e6, [](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back(time_entry("preemption:backup", 4e6));
    if (i % 3) r.noise.push_back(time_entry("nmi:perf_event_nmi_handler", 2e6));
  });
  rec.warmup_windows = 0;
  rec = test::analyzed(rec);
  ASSERT_NE(find_rec(rec, "sched-fifo"), nullptr);
  EXPECT_TRUE(has_line_starting(*find_rec(rec, "sched-fifo"), "noisewatch --windows --fifo 1 -- ./bench"));
  ASSERT_NE(find_rec(rec, "nmi-watchdog"), nullptr);
  EXPECT_TRUE(
      has_line_starting(*find_rec(rec, "nmi-watchdog"), "noisewatch --windows --tune --tune-only nmi-watchdog"));
}

}  // namespace
}  // namespace nw
