// SPDX-License-Identifier: Apache-2.0
// Event names through libpfm4 (no root needed: only the encoding is checked), the default set
// and the group plan.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "probes/counters.h"
#include "probes/pfm_events.h"

namespace nw::probes {
namespace {

TEST(CountersPfmResolve, SoftwareEventsByPerfName) {
  auto ev = pfm_resolve("task-clock");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->attr.type, uint32_t(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(ev->attr.config, uint64_t(PERF_COUNT_SW_TASK_CLOCK));
  EXPECT_FALSE(ev->hardware);
  EXPECT_EQ(ev->pmu, "perf");
  EXPECT_EQ(ev->attr.size, sizeof(perf_event_attr));
  EXPECT_NE(ev->canonical.find("PERF_COUNT_SW_TASK_CLOCK"), std::string::npos);
  EXPECT_EQ(pfm_resolve("context-switches")->attr.config, uint64_t(PERF_COUNT_SW_CONTEXT_SWITCHES));
  EXPECT_EQ(pfm_resolve("cpu-migrations")->attr.config, uint64_t(PERF_COUNT_SW_CPU_MIGRATIONS));
  EXPECT_EQ(pfm_resolve("page-faults")->attr.config, uint64_t(PERF_COUNT_SW_PAGE_FAULTS));
}

TEST(CountersPfmResolve, HardwareEventsAreMarkedAsSuch) {
  auto ev = pfm_resolve("cycles");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->attr.type, uint32_t(PERF_TYPE_HARDWARE));
  EXPECT_EQ(ev->attr.config, uint64_t(PERF_COUNT_HW_CPU_CYCLES));
  EXPECT_TRUE(ev->hardware);
  EXPECT_TRUE(pfm_resolve("instructions")->hardware);
  EXPECT_TRUE(pfm_resolve("branch-misses")->hardware);
}

TEST(CountersPfmResolve, ModifiersSelectThePrivilegeLevels) {
  EXPECT_FALSE(pfm_resolve("task-clock")->attr.exclude_kernel);
  EXPECT_TRUE(pfm_resolve("task-clock:u")->attr.exclude_kernel);
  EXPECT_FALSE(pfm_resolve("task-clock:u")->attr.exclude_user);
}

TEST(CountersPfmResolve, UnknownIsNotFoundAndBadModifierIsAnError) {
  EXPECT_FALSE(pfm_resolve("no-such-event").has_value());
  EXPECT_THROW(pfm_resolve("cycles:bogus"), nw::Error);
}

TEST(CountersClass, UnknownEventNamesTheEvent) {
  try {
    Counters c({"no-such-event"});
    FAIL() << "expected nw::Error";
  } catch (const nw::Error& e) {
    EXPECT_STREQ(e.what(), "unknown event 'no-such-event' (see `noisewatch events`)");
  }
  EXPECT_THROW(Counters({"nopmu/nothing/"}), nw::Error);
}

TEST(CountersClass, TyposAreReportedBeforeAnythingIsOpened) {
  // As an unprivileged user task-clock could not be opened; the typo must still be what is said.
  try {
    Counters c({"task-clock", "instructons"});
    FAIL() << "expected nw::Error";
  } catch (const nw::Error& e) {
    EXPECT_STREQ(e.what(), "unknown event 'instructons' (see `noisewatch events`)");
  }
}

TEST(CountersClass, DuplicateOrEmptyNamesAreErrors) {
  EXPECT_THROW(Counters({""}), nw::Error);
  try {
    Counters c({"no-such-event", "no-such-event"});
    FAIL() << "expected nw::Error";
  } catch (const nw::Error& e) {
    EXPECT_STREQ(e.what(), "event 'no-such-event' is listed twice");  // checked before resolving
  }
}

TEST(CountersClass, DefaultSetFollowsTheVendor) {
  auto amd = Counters::default_events("amd64_fam19h_zen4");
  auto intel = Counters::default_events("skl");
  auto has = [](const std::vector<std::string>& v, const char* e) {
    return std::find(v.begin(), v.end(), e) != v.end();
  };
  for (const char* e : {"cycles", "instructions", "cache-misses", "branch-misses", "task-clock", "context-switches",
                        "cpu-migrations", "page-faults", "effective-ghz"}) {
    EXPECT_TRUE(has(amd, e)) << e;
    EXPECT_TRUE(has(intel, e)) << e;
  }
  EXPECT_TRUE(has(intel, "ref-cycles"));
  EXPECT_FALSE(has(amd, "ref-cycles"));  // AMD's reference clock is MPERF (effective-ghz)
  for (const auto& e : intel)
    if (e != "effective-ghz") EXPECT_TRUE(pfm_resolve(e).has_value()) << e;
}

TEST(CountersPlanGroups, OneGroupPerPmu) {
  std::vector<ResolvedEvent> ev(8);
  ev[0].attr.type = PERF_TYPE_HARDWARE;  // cycles: leader
  ev[1].attr.type = PERF_TYPE_SOFTWARE;  // software group leader
  ev[2].attr.type = PERF_TYPE_HW_CACHE;  // same core PMU
  ev[3].attr.type = PERF_TYPE_RAW;       // libpfm4's model-specific encodings
  ev[4].attr.type = 9;                   // msr: its own group
  ev[5].attr.type = 9;
  ev[6].attr.type = PERF_TYPE_SOFTWARE;
  ev[7].attr.type = PERF_TYPE_TRACEPOINT;  // alone
  EXPECT_EQ(plan_groups(ev), (std::vector<int>{0, 1, 0, 0, 4, 4, 1, -1}));
}

}  // namespace
}  // namespace nw::probes
