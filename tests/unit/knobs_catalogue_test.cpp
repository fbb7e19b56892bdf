// SPDX-License-Identifier: Apache-2.0
// The knob catalogue: complete (every check finding with a fix, every machine knob the report
// recommends), consistent (ids unique, each scope has what it needs) and searchable by source.
#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "knobs/catalogue.h"
#include "reports/advice.h"
#include "sources/kernel_names.h"
#include "sources/vocabulary.h"
#include "system/sysroot.h"

namespace nw::knobs {
namespace {

std::vector<std::string> ids(const std::vector<const Knob*>& ks) {
  std::vector<std::string> out;
  for (const auto* k : ks) out.emplace_back(k->id);
  return out;
}

std::vector<const Knob*> for_source(std::string_view source) {
  std::vector<const Knob*> out;
  for (const auto& k : catalogue())
    if (k.addresses(source)) out.push_back(&k);
  return out;
}

// Examples of every category of the vocabulary: each enumerable name (APIC vectors, softirqs,
// blocking parts) and, for open-ended names, typical ones.
std::vector<std::string> vocabulary_examples(std::string_view category) {
  using namespace sources;
  std::vector<std::string> out;
  if (category == kIrq) {
    for (auto v : apic_vector_names()) out.push_back(format(kIrq, v));
    out.push_back("irq:virtio1-req.0");
  } else if (category == kSoftirq) {
    for (auto v : softirq_names()) out.push_back(format(kSoftirq, v));
  } else if (category == kPreemption) {
    for (auto p : kernel_thread_prefixes()) out.push_back(format(kPreemption, std::string(p) + "1"));
    out.insert(out.end(), {"preemption:stress-ng", "preemption:kworker/u8:1"});
  } else if (category == kBlocking) {
    out = {"blocking", "blocking:sleep", blocking_io("virtio1-req.0"), blocking_wait("postgres"), "blocking:other"};
  } else if (category == kContention) {
    out = {"contention:bench"};
  } else if (category == kWakeup) {
    out = {"wakeup:idle"};
  } else if (category == kNmi) {
    out = {"nmi:nmi", "nmi:perf_event_nmi_handler"};
  } else if (category == kSmt) {
    out = {"smt:cc1plus"};
  } else if (category == kThrottle) {
    out = {"throttle:/docker/abc"};
  } else if (category == kSteal || category == kFrequency || category == kMigration || category == kFault ||
             category == kUnexplained) {
    out = {std::string(category)};
  }
  return out;
}

TEST(KnobsCatalogue, IdsAreUniqueAndEachScopeHasWhatItNeeds) {
  std::set<std::string_view> seen;
  for (const auto& k : catalogue()) {
    EXPECT_TRUE(seen.insert(k.id).second) << "duplicate id " << k.id;
    EXPECT_FALSE(k.title.empty()) << k.id;
    EXPECT_FALSE(k.tradeoff.empty()) << k.id;
    EXPECT_FALSE(k.removes.empty()) << k.id;
    switch (k.scope) {
      case Scope::runtime:
        EXPECT_NE(k.plan, nullptr) << k.id;
        EXPECT_NE(k.commands, nullptr) << k.id;
        break;
      case Scope::boot:
        EXPECT_NE(k.boot, nullptr) << k.id;
        EXPECT_FALSE(k.boot_key.empty()) << k.id;
        EXPECT_TRUE(k.reboot()) << k.id;
        break;
      case Scope::benchmark:
        EXPECT_FALSE(k.run_flag.empty()) << k.id;
        EXPECT_NE(k.commands, nullptr) << k.id;
        break;
      case Scope::manual:
        EXPECT_NE(k.commands, nullptr) << k.id;
        break;
    }
    if (!k.needs.empty()) EXPECT_NE(find(k.needs), nullptr) << k.id << " needs " << k.needs;
  }
}

TEST(KnobsCatalogue, EveryCheckFindingWithAFixHasAKnob) {
  // docs/contracts.md finding ids; hybrid-cpu, virtualization, power-supply and
  // thermal-throttling are facts of the machine, not settings.
  for (const char* f :
       {"cpu-governor",       "frequency-range", "turbo-boost", "smt",       "cpu-isolation",         "nohz-full",
        "rcu-nocbs",          "irq-affinity",    "irqbalance",  "aslr",      "transparent-hugepages", "nmi-watchdog",
        "cpu-idle-states",    "numa-balancing",  "load",        "cpu-quota", "cpu-quota-cpuset",      "memory-limit",
        "container-unpinned", "preempt-rt"})
    EXPECT_FALSE(for_finding(f).empty()) << f;
  EXPECT_EQ(ids(for_finding("irq-affinity")),
            (std::vector<std::string>{"irq-affinity", "irq-default-affinity", "irqaffinity"}));
}

// A container's cgroups belong to its runtime: `tune` never writes to one it did not create, so
// every knob fixing a container finding is manual, with no planner, and says where to change it.
TEST(KnobsCatalogue, ContainerKnobsAreManualAndNameTheContainersSpec) {
  for (const char* f : {"cpu-quota", "cpu-quota-cpuset", "memory-limit", "container-unpinned"}) {
    ASSERT_FALSE(for_finding(f).empty()) << f;
    for (const Knob* k : for_finding(f)) {
      EXPECT_EQ(k->scope, Scope::manual) << k->id;
      EXPECT_EQ(k->plan, nullptr) << k->id;
      auto lines = commands(*k, Context{});
      ASSERT_FALSE(lines.empty()) << k->id;
      EXPECT_EQ(lines[0], "# in the container's spec (noisewatch tune never writes to a cgroup it did not create):")
          << k->id;
    }
  }
  // And what tune does write, planned on this VM's tune tree, lies outside every cgroup.
  sys::Sysroot root(std::string(NW_SOURCE_DIR) + "/tests/data/sysroots/tune-vm-firecracker-2cpu");
  size_t writes = 0;
  for (const Knob* k : runtime_knobs())
    for (const auto& w : k->plan(root, Targets{{1}, {0, 1}, {0}}).writes) {
      ++writes;
      EXPECT_NE(w.path.rfind("/sys/fs/cgroup", 0), 0u) << k->id << " writes " << w.path;
    }
  EXPECT_GT(writes, 0u) << "the tree gives the planners something to write";
}

TEST(KnobsCatalogue, CoversEveryMachineKnobTheReportRecommends) {
  // The report's own ids that are about the measurement or the workload's own setup (more-cpus:
  // its threads compete with each other), not a machine or process setting.
  const std::set<std::string> measurement = {"move-irq",    "quieter-cpu", "dedicated-host",
                                             "fix-inputs",  "workload-io", "workload-wait",
                                             "more-warmup", "more-runs",   "more-cpus"};
  for (const auto& id : report::recommendation_ids()) {
    if (measurement.count(id)) continue;
    EXPECT_NE(find(id), nullptr) << "the report recommends " << id << " but the catalogue has no such knob";
  }
  // move-irq is irq-affinity for one IRQ.
  ASSERT_NE(find("irq-affinity"), nullptr);
}

TEST(KnobsCatalogue, RuntimeOrderStopsIrqbalanceBeforeMovingIrqsAndTurboBeforeMinMax) {
  auto order = ids(runtime_knobs());
  auto pos = [&](const char* id) { return std::find(order.begin(), order.end(), id) - order.begin(); };
  EXPECT_LT(pos("irqbalance"), pos("irq-affinity"));
  EXPECT_LT(pos("turbo-off"), pos("fixed-frequency"));
  EXPECT_EQ(order.back(), "smt-off");
  EXPECT_TRUE(get("smt-off").opt_in);
  // A CPU-bound real-time task with no throttling owns its CPU: never applied unasked.
  EXPECT_TRUE(get("rt-throttling-off").opt_in);
}

TEST(KnobsCatalogue, ForSourceMatchesExactCategoryPrefixAndExclusions) {
  EXPECT_EQ(ids(for_source("frequency")),
            (std::vector<std::string>{"performance-governor", "turbo-off", "fixed-frequency"}));
  auto device = ids(for_source("irq:virtio1-req.0"));
  for (const char* id : {"irqbalance", "irq-affinity", "irq-default-affinity", "irqaffinity"})
    EXPECT_NE(std::find(device.begin(), device.end(), id), device.end()) << id;
  // The local timer is an APIC vector: no affinity moves it; nohz_full stops it.
  EXPECT_EQ(ids(for_source("irq:local_timer")), (std::vector<std::string>{"nohz-full"}));
  EXPECT_EQ(ids(for_source("smt:cc1plus")), (std::vector<std::string>{"smt-off"}));
  auto kworker = ids(for_source("preemption:kworker/u8:1"));
  EXPECT_NE(std::find(kworker.begin(), kworker.end(), "workqueue-cpumask"), kworker.end());
  auto bound = ids(for_source("preemption:kworker/1:2"));
  EXPECT_EQ(std::find(bound.begin(), bound.end(), "workqueue-cpumask"), bound.end());
  EXPECT_TRUE(for_source("no-such-source").empty());
}

// A source a knob cannot remove says why, in the catalogue: a new source (or a new category) with
// neither fails here, so the report never meets a material source without anyone having decided.
TEST(KnobsCatalogue, EverySourceOfTheVocabularyHasAKnobOrAStatedReason) {
  auto stated = [](const std::string& source) {
    return std::any_of(without_knob().begin(), without_knob().end(), [&](const NoKnob& n) {
      Knob pattern;
      pattern.sources = n.sources;
      return pattern.addresses(source);
    });
  };
  for (auto category : sources::known_categories()) {
    auto examples = vocabulary_examples(category);
    EXPECT_FALSE(examples.empty()) << "category " << category << ": add its examples to vocabulary_examples()";
    for (const auto& source : examples)
      EXPECT_TRUE(!for_source(source).empty() || stated(source))
          << source << ": no knob's `sources` covers it and without_knob() gives no reason (src/knobs/catalogue.cpp)";
  }
  // Each reason is about a source no knob covers: a knob added later retires its reason.
  std::set<std::string_view> why_given;
  for (const auto& n : without_knob()) {
    EXPECT_FALSE(n.sources.empty()) << n.why;
    EXPECT_TRUE(why_given.insert(n.why).second) << "one reason, stated once: " << n.why;
    for (auto pattern : n.sources) {
      std::string example(pattern);
      if (example.ends_with('*')) example.back() = 'x';
      EXPECT_TRUE(for_source(example).empty()) << pattern << " has a knob now: drop its reason";
    }
  }
}

TEST(KnobsCatalogue, UserProcessKnobsLeaveKernelThreadsToIsolationAndKthreadCpus) {
  for (const char* id : {"stop-process", "sched-fifo", "nice"}) {
    EXPECT_TRUE(get(id).addresses("preemption:stress-ng")) << id;
    EXPECT_FALSE(get(id).addresses("preemption:kswapd0")) << id;
    EXPECT_FALSE(get(id).addresses("preemption:kworker/1:2")) << id;
  }
  for (const char* unbound : {"preemption:kswapd0", "preemption:kcompactd0", "preemption:kcompactd1",
                              "preemption:khugepaged", "preemption:rcu_preempt"})
    EXPECT_TRUE(get("kthread-cpus").addresses(unbound)) << unbound;
  for (const char* bound : {"preemption:ksoftirqd/1", "preemption:kworker/u8:1", "preemption:stress-ng"})
    EXPECT_FALSE(get("kthread-cpus").addresses(bound)) << bound;
  // Every kcompactd (one per NUMA node), not only node 0's.
  EXPECT_TRUE(get("transparent-hugepages").addresses("preemption:kcompactd1"));
}

TEST(KnobsCatalogue, GetThrowsForAnUnknownId) {
  EXPECT_THROW(get("no-such-knob"), std::out_of_range);
  EXPECT_EQ(find("no-such-knob"), nullptr);
  EXPECT_EQ(get("aslr-off").run_flag, "--no-aslr");
}

}  // namespace
}  // namespace nw::knobs
