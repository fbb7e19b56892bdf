// SPDX-License-Identifier: Apache-2.0
// The kernel's sysfs PMU descriptions (events + format bit layouts), read from small trees in
// tests/data/counters/ written in the kernel's formats: an msr PMU with and without aperf/mperf
// (this VM has only tsc) and an Intel-like cpu PMU.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "probes/counter_host.h"
#include "probes/counter_sysfs_pmu.h"

namespace nw::probes {
namespace {

std::string tree(const char* name) { return std::string(NW_SOURCE_DIR) + "/tests/data/counters/" + name; }

TEST(CountersSysfsPmu, SplitsPerfStyleNames) {
  EXPECT_EQ(split_sysfs_name("msr/aperf/"), (std::pair<std::string, std::string>{"msr", "aperf"}));
  EXPECT_EQ(split_sysfs_name("msr/tsc"), (std::pair<std::string, std::string>{"msr", "tsc"}));
  EXPECT_FALSE(split_sysfs_name("cycles").has_value());
  EXPECT_FALSE(split_sysfs_name("perf::CYCLES").has_value());
  EXPECT_FALSE(split_sysfs_name("a/b/c").has_value());
}

TEST(CountersSysfsPmu, ListsEventsButNotTheirScaleFiles) {
  EXPECT_EQ(sysfs_pmu_events("msr", tree("sysfs-aperf")), (std::vector<std::string>{"aperf", "mperf", "tsc"}));
  EXPECT_EQ(sysfs_pmu_events("cpu", tree("sysfs-aperf")),
            (std::vector<std::string>{"cpu-cycles", "mem-loads", "needs-param"}));
  EXPECT_TRUE(sysfs_pmu_events("nope", tree("sysfs-aperf")).empty());
}

TEST(CountersSysfsPmu, EncodesMsrEvents) {
  auto ev = sysfs_resolve("msr/mperf/", "msr", "mperf", tree("sysfs-aperf"));
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->attr.type, 9u);
  EXPECT_EQ(ev->attr.config, 2u);
  EXPECT_EQ(ev->attr.size, sizeof(perf_event_attr));
  EXPECT_EQ(ev->name, "msr/mperf/");
  EXPECT_FALSE(ev->hardware);  // an MSR, not a PMU counter
}

TEST(CountersSysfsPmu, ScattersTermsOverTheirFormatBits) {
  auto ev = sysfs_resolve("cpu/mem-loads/", "cpu", "mem-loads", tree("sysfs-aperf"));
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->attr.type, 4u);
  EXPECT_EQ(ev->attr.config, 0x01cdu);  // event 0xcd in bits 0-7, umask 0x1 in bits 8-15
  EXPECT_EQ(ev->attr.config1, 3u);      // ldlat in config1
  EXPECT_TRUE(ev->hardware);
}

TEST(CountersSysfsPmu, MissingEventIsNotFoundAndParametersAreAnError) {
  EXPECT_FALSE(sysfs_resolve("msr/aperf/", "msr", "aperf", tree("sysfs-tsc-only")).has_value());
  EXPECT_FALSE(sysfs_resolve("x/y/", "x", "y", tree("sysfs-aperf")).has_value());
  EXPECT_THROW(sysfs_resolve("cpu/needs-param/", "cpu", "needs-param", tree("sysfs-aperf")), nw::Error);
}

TEST(CountersAperfMperf, AvailabilityFollowsTheMsrPmu) {
  EXPECT_FALSE(aperf_mperf_missing(tree("sysfs-aperf")).has_value());
  auto why = aperf_mperf_missing(tree("sysfs-tsc-only"));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("no aperf/mperf"), std::string::npos);
  why = aperf_mperf_missing(tree("no-such-tree"));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("no msr PMU"), std::string::npos);
}

TEST(CountersHostPmu, ReasonsSayWhyHardwareEventsAreMissing) {
  EXPECT_TRUE(cpuinfo_says_virtualized(tree("cpuinfo-vm")));
  EXPECT_FALSE(cpuinfo_says_virtualized(tree("cpuinfo-bare")));
  EXPECT_FALSE(cpuinfo_says_virtualized(tree("absent")));
  EXPECT_EQ(no_pmu_reason(ENOENT, true), "no hardware PMU exposed: virtual machine");
  EXPECT_NE(no_pmu_reason(ENOENT, false).find("No such file or directory"), std::string::npos);
  EXPECT_NE(no_pmu_reason(EACCES, true).find("perf_event_paranoid"), std::string::npos);
}

}  // namespace
}  // namespace nw::probes
